#include "tests/backends/gloo/rank_runner.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

// LeakSanitizer's explicit check, present only in sanitizer builds: children leave with
// _exit, which skips the check LSan would run at exit.
extern "C" int __lsan_do_recoverable_leak_check()  // NOLINT(bugprone-reserved-identifier)
    __attribute__((weak));

namespace weft::test {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void ChildMain(int rank, int n, const std::string& dir, const RankBody& body) {
  FsStore store(dir);
  TestHost host(&store);
  void* lib = dlopen(WEFT_GLOO_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) ChildFail(__FILE__, __LINE__, std::string("dlopen: ") + dlerror());
  auto entry = reinterpret_cast<weft_backend_plugin_entry_fn>(dlsym(lib, "weft_backend_plugin_v1"));
  if (entry == nullptr) ChildFail(__FILE__, __LINE__, "no weft_backend_plugin_v1");
  Rank r;
  r.rank = rank;
  r.size = n;
  r.plugin = entry();
  r.store = &store;
  r.host = &host;
  const weft_bk_init_args_t args{sizeof(weft_bk_init_args_t), rank, n, rank, n, 0, kOpTimeoutMs};
  RCHECK_OK(r.plugin->init(host.api(), &args, &r.state));
  std::vector<int32_t> ranks(n);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  RCHECK_OK(r.plugin->comm_create(r.state, ranks.data(), n, rank, "world", kOpTimeoutMs, &r.world));
  // Every rank has finished comm_create before any scenario may close connections on
  // purpose; the store, not the transport, says so.
  r.Signal("connected/" + std::to_string(rank));
  for (int q = 0; q < n; ++q) r.AwaitSignal("connected/" + std::to_string(q));
  body(r);
  r.plugin->comm_destroy(r.world);
  r.plugin->finalize(r.state);
  std::fflush(nullptr);
  if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check() != 0) _exit(3);
  _exit(0);
}

ChildOutcome Decode(int status) {
  ChildOutcome o;
  o.exited = WIFEXITED(status);
  o.code = o.exited ? WEXITSTATUS(status) : -1;
  o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return o;
}

// Reaps the children until all exited or the limit passed; kills the rest.
std::vector<ChildOutcome> Reap(const std::vector<pid_t>& pids, std::chrono::seconds limit) {
  std::vector<ChildOutcome> out(pids.size());
  std::vector<bool> done(pids.size(), false);
  size_t left = pids.size();
  const auto deadline = Clock::now() + limit;
  while (left > 0) {
    for (size_t i = 0; i < pids.size(); ++i) {
      int status = 0;
      if (!done[i] && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        out[i] = Decode(status);
        done[i] = true;
        --left;
      }
    }
    if (left == 0) break;
    if (Clock::now() >= deadline) {
      for (size_t i = 0; i < pids.size(); ++i) {
        if (done[i]) continue;
        kill(pids[i], SIGKILL);
        int status = 0;
        waitpid(pids[i], &status, 0);
        out[i] = Decode(status);
        out[i].timed_out = true;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return out;
}

}  // namespace

weft_bk_op_t Rank::Op(weft_bk_comm_t* comm, int64_t timeout_ms, DLDevice device) {
  return weft_bk_op_t{sizeof(weft_bk_op_t), 0, device, nullptr, timeout_ms, seqs[comm]++};
}

void Rank::Signal(const std::string& key) { RCHECK_OK(store->Set(key, "1", 1)); }

void Rank::AwaitSignal(const std::string& key, int64_t timeout_ms) {
  std::string ignored;
  RCHECK_OK(store->Get(key, &ignored, timeout_ms));
}

void ChildFail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "[child %d] %s:%d: check failed: %s\n", getpid(), file, line, what.c_str());
  std::fflush(nullptr);
  _exit(1);
}

std::vector<ChildOutcome> RunRanks(int n, const RankBody& body, std::chrono::seconds limit) {
  char tmpl[] = "/tmp/weft-gloo-test-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) return {};
  std::fflush(nullptr);  // children must not repeat the parent's buffered output
  std::vector<pid_t> pids;
  for (int rank = 0; rank < n; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) ChildMain(rank, n, dir, body);
    pids.push_back(pid);
  }
  auto outcomes = Reap(pids, limit);
  std::filesystem::remove_all(dir);
  return outcomes;
}

std::string Describe(const std::vector<ChildOutcome>& outcomes) {
  std::string text;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    text += "rank " + std::to_string(i) + ": " +
            (o.timed_out ? "hung (killed at the limit)"
             : o.exited  ? "exit " + std::to_string(o.code)
                         : "signal " + std::to_string(o.signal)) +
            "\n";
  }
  return text;
}

bool AllSucceeded(const std::vector<ChildOutcome>& outcomes) {
  if (outcomes.empty()) return false;
  for (const auto& o : outcomes) {
    if (!o.exited || o.code != 0 || o.timed_out) return false;
  }
  return true;
}

}  // namespace weft::test
