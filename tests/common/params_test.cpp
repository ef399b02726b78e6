// The host registry (common/params.hpp): cached values and when they are re-read, Check, the
// listing, and the must-match values and their comparison.
#include "common/params.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <set>
#include <string>

namespace weft::params {
namespace {

// Sets (or unsets) a variable for one test and re-reads the registry, both ways.
class ScopedVar {
 public:
  ScopedVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    Set(value);
  }
  ~ScopedVar() { Set(old_); }
  ScopedVar(const ScopedVar&) = delete;
  ScopedVar& operator=(const ScopedVar&) = delete;

 private:
  void Set(const std::optional<std::string>& v) {
    if (v)
      ::setenv(name_, v->c_str(), 1);
    else
      ::unsetenv(name_);
    ReloadForTesting();
  }
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Params, EveryHostDeclarationIsSoundAndNamedOnce) {
  std::set<std::string> names;
  for (const weft_bk_param_t& p : kHostParams) {
    EXPECT_EQ(param::CheckDescriptor(p), "") << p.name;
    EXPECT_TRUE(names.insert(p.name).second) << p.name << " declared twice";
  }
  EXPECT_EQ(names.size(), kNumHostParams);
}

TEST(Params, DefaultsWhenUnset) {
  ScopedVar a("WEFT_ALLTOALL_CHUNK_BYTES", std::nullopt);
  ScopedVar t("WEFT_TIMEOUT_MS", std::nullopt);
  ScopedVar b("WEFT_BACKEND", std::nullopt);
  EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), int64_t{8} << 20);
  EXPECT_EQ(*Int("WEFT_TIMEOUT_MS"), 300000);
  const Result<param::Value> backend = Get("WEFT_BACKEND");
  ASSERT_TRUE(backend.ok());
  EXPECT_FALSE(backend->set);
  EXPECT_EQ(*Text("WEFT_BACKEND"), "");
  // No default: Int has no number to give.
  EXPECT_EQ(Int("WEFT_STORE_PORT").status().code(), Code::kInternal);
}

TEST(Params, ValuesAreCachedUntilReread) {
  ScopedVar a("WEFT_ALLTOALL_CHUNK_BYTES", "1M");
  EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 1 << 20);
  ::setenv("WEFT_ALLTOALL_CHUNK_BYTES", "2M", 1);  // not seen: read once
  EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 1 << 20);
  ReloadForTesting();
  EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 2 << 20);
}

TEST(Params, PinnedKeepsValuesAndTheFirstPinRereads) {
  ScopedVar a("WEFT_ALLTOALL_CHUNK_BYTES", "1M");
  EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 1 << 20);
  ::setenv("WEFT_ALLTOALL_CHUNK_BYTES", "2M", 1);
  {
    Pinned first;  // none held: re-reads
    EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 2 << 20);
    ::setenv("WEFT_ALLTOALL_CHUNK_BYTES", "3M", 1);
    Pinned second;  // one held: the values stay as the first context read them
    EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 2 << 20);
  }
  Pinned after;  // all released: re-reads
  EXPECT_EQ(*Int("WEFT_ALLTOALL_CHUNK_BYTES"), 3 << 20);
}

TEST(Params, MalformedValueIsAnErrorNamingTheVariable) {
  ScopedVar c("WEFT_CONNECT_TIMEOUT_MS", "2s");
  const Result<int64_t> v = Int("WEFT_CONNECT_TIMEOUT_MS");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(v.status().message(),
            "WEFT_CONNECT_TIMEOUT_MS is '2s' but must be a whole number of milliseconds in "
            "[1, 604800000], or -1 for no deadline");
  EXPECT_EQ(Check().message(), v.status().message());
  // The readers that cannot report it get the default; Check reports it at context creation.
  EXPECT_EQ(ValueOrDefault("WEFT_CONNECT_TIMEOUT_MS").number, 60000);
}

TEST(Params, CheckLeavesLaunchVariablesToTheLaunchDetection) {
  ScopedVar r("WEFT_RANK", "abc");
  EXPECT_TRUE(Check().ok());  // backends/env reads WEFT_RANK only when its convention applies
  EXPECT_FALSE(Get("WEFT_RANK").ok());
}

TEST(Params, ListingShowsValueDefaultSourceAndMatch) {
  ScopedVar a("WEFT_ALLTOALL_CHUNK_BYTES", "4K");
  ScopedVar t("WEFT_TIMEOUT_MS", std::nullopt);
  ScopedVar l("WEFT_LOG_LEVEL", "loud");
  const std::string out = FormatListing("libweft", HostSettings());
  EXPECT_EQ(out.rfind("libweft\nNAME", 0), 0u) << out;
  const auto line = [&](const std::string& name) {
    const size_t at = out.find("\n" + name + " ");
    EXPECT_NE(at, std::string::npos) << name << " missing:\n" << out;
    return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
  };
  for (const weft_bk_param_t& p : kHostParams) line(p.name);
  const auto words = [](const std::string& s) {
    std::vector<std::string> w;
    size_t at = 0;
    while ((at = s.find_first_not_of(' ', at)) != std::string::npos) {
      const size_t end = s.find(' ', at);
      w.push_back(s.substr(at, end - at));
      at = end;
    }
    return w;
  };
  const auto chunk = words(line("WEFT_ALLTOALL_CHUNK_BYTES"));
  EXPECT_EQ(std::vector<std::string>(chunk.begin(), chunk.begin() + 6),
            (std::vector<std::string>{"WEFT_ALLTOALL_CHUNK_BYTES", "4K", "8M", "env", "must-match",
                                      "tuning"}));
  const auto timeout = words(line("WEFT_TIMEOUT_MS"));
  EXPECT_EQ(
      std::vector<std::string>(timeout.begin(), timeout.begin() + 6),
      (std::vector<std::string>{"WEFT_TIMEOUT_MS", "300000", "300000", "default", "-", "user"}));
  EXPECT_NE(line("WEFT_LOG_LEVEL").find("'loud' (invalid)"), std::string::npos);
  EXPECT_NE(out.find("error: WEFT_LOG_LEVEL is 'loud' but must be one of trace, debug, info, "
                     "warn, warning, error, err, critical, off"),
            std::string::npos)
      << out;
}

TEST(Params, MustMatchValuesAreCanonicalAndRoundTrip) {
  ScopedVar a("WEFT_ALLTOALL_CHUNK_BYTES", "1M");
  ScopedVar b("WEFT_BACKEND", std::nullopt);
  ScopedVar d("WEFT_BACKEND_DISABLE_OPS", "all");
  const std::vector<MatchValue> values = MustMatch(HostSettings());
  std::vector<std::string> names;
  for (const MatchValue& v : values) names.push_back(v.name);
  // Declaration order (common/host_params.hpp): the value each rank must agree on.
  const std::vector<std::string> want = {"WEFT_BACKEND",
                                         "WEFT_STORE_INSECURE",
                                         "WEFT_STORE_MAX_MESSAGE",
                                         "WEFT_CHECK_COLLECTIVES",
                                         "WEFT_CHECK_COLLECTIVES_MIN_BYTES",
                                         "WEFT_DETERMINISTIC_REDUCTIONS",
                                         "WEFT_PLAN_EXTRA_BYTES_CAP",
                                         "WEFT_ALLTOALL_CHUNK_BYTES",
                                         "WEFT_BACKEND_DISABLE_OPS"};
  ASSERT_EQ(names, want);
  EXPECT_EQ(values[0].value, "(unset)");
  EXPECT_EQ(values[7].value, "1048576");
  EXPECT_EQ(values[8].value, "all");
  std::vector<MatchValue> odd = {{"WEFT_A", "x=y\\z\nw"}, {"WEFT_B", ""}};
  const Result<std::vector<MatchValue>> back = DecodeMatches(EncodeMatches(odd));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].value, "x=y\\z\nw");
  EXPECT_EQ((*back)[1].value, "");
  EXPECT_FALSE(DecodeMatches("no equals sign\n").ok());
  EXPECT_FALSE(DecodeMatches("WEFT_A=unterminated").ok());
}

TEST(Params, FirstMismatchNamesTheVariableAndBothValues) {
  const std::vector<MatchValue> rank0 = {{"WEFT_BACKEND", "ucx"},
                                         {"WEFT_UCX_ALLGATHER_DIRECT", "1"}};
  std::vector<MatchValue> rank2 = rank0;
  EXPECT_EQ(FirstMismatch(rank2, 2, rank0, 0), "");
  rank2[1].value = "0";
  EXPECT_EQ(FirstMismatch(rank2, 2, rank0, 0),
            "WEFT_UCX_ALLGATHER_DIRECT is 0 on rank 2 but 1 on rank 0");
  rank2.pop_back();
  EXPECT_EQ(FirstMismatch(rank2, 2, rank0, 0),
            "WEFT_UCX_ALLGATHER_DIRECT is 1 on rank 0 but not declared on rank 2 (another "
            "backend plugin?)");
  EXPECT_EQ(FirstMismatch(rank0, 1, rank2, 0),
            "WEFT_UCX_ALLGATHER_DIRECT is 1 on rank 1 but not declared on rank 0 (another "
            "backend plugin?)");
}

}  // namespace
}  // namespace weft::params
