#include "tests/runtime/fault_driver.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include "weft/weft.h"

namespace weft::test {

std::string Backend() {
  const char* b = std::getenv("WEFT_FAULT_BACKEND");
  return b && *b ? b : "gloo";
}

std::vector<WorkerSpec> Launch(const std::vector<int>& ranks, const std::vector<int>& world_sizes,
                               const std::vector<std::string>& args) {
  const int port = PickFreePort();
  std::vector<WorkerSpec> specs;
  for (size_t i = 0; i < ranks.size(); ++i) {
    WorkerSpec s;
    s.args = args;
    s.env = {"WEFT_RANK=" + std::to_string(ranks[i]),
             "WEFT_WORLD_SIZE=" + std::to_string(world_sizes[i]),
             "WEFT_LOCAL_RANK=" + std::to_string(ranks[i]),
             "WEFT_LOCAL_WORLD_SIZE=" + std::to_string(world_sizes[i]),
             "WEFT_STORE=127.0.0.1:" + std::to_string(port), "WEFT_BACKEND=" + Backend(),
             // A broken launch then fails the test in time, and case 5 proves it fails faster.
             "WEFT_CONNECT_TIMEOUT_MS=20000"};
    if (!std::getenv("WEFT_LOG_LEVEL")) s.env.push_back("WEFT_LOG_LEVEL=off");
    specs.push_back(std::move(s));
  }
  return specs;
}

std::vector<WorkerSpec> World(int n, const std::vector<std::string>& args) {
  std::vector<int> ranks(n);
  for (int r = 0; r < n; ++r) ranks[r] = r;
  return Launch(ranks, std::vector<int>(n, n), args);
}

std::string Dump(const WorkerGroup& g) {
  std::string out;
  for (size_t i = 0; i < g.size(); ++i)
    for (const Report& r : g.reports(i))
      out += "  worker " + std::to_string(i) + ": " + FormatReport(r);
  return out.empty() ? "  (no reports)\n" : out;
}

std::string StatusName(int32_t s) { return weft_status_string(s); }

std::vector<size_t> AllBut(size_t n, size_t skip) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (i != skip) out.push_back(i);
  return out;
}

std::vector<size_t> All(size_t n) { return AllBut(n, n); }

bool AllHave(const WorkerGroup& g, const std::vector<size_t>& who, const std::string& kind) {
  for (size_t i : who)
    if (!g.Has(i, kind)) return false;
  return true;
}

bool AnyFailed(const WorkerGroup& g) {
  for (size_t i = 0; i < g.size(); ++i)
    for (const Report& r : g.reports(i))
      if (r.status != WEFT_OK && r.kind != "destroy") return true;
  return false;
}

bool ExpectCleanTeardown(WorkerGroup& g, const std::vector<size_t>& who, Clock::time_point deadline,
                         double max_seconds) {
  for (size_t i : who) g.Release(i);
  const bool all = g.ReadUntil([&] { return AllHave(g, who, "destroy"); }, deadline);
  EXPECT_TRUE(all) << "a worker did not tear down:\n" << Dump(g);
  if (!all) return false;
  for (size_t i : who) {
    const Report d = *g.Find(i, "destroy");
    EXPECT_EQ(d.status, WEFT_OK) << "worker " << i << ": " << d.message;
    EXPECT_LT(d.seconds(), max_seconds) << "worker " << i << ": teardown took too long";
    const std::optional<int> st = g.Reap(i, deadline);
    EXPECT_TRUE(st.has_value()) << "worker " << i << " did not exit after destroy";
    if (!st) return false;
    EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0)
        << "worker " << i << " wait status " << *st;
  }
  return true;
}

}  // namespace weft::test
