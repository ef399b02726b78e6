// End-to-end tests of the weftrun binary (SPEC §8 "Launch"): real ranks are started,
// signalled and killed. The ranks are small `sh -c` scripts, found through PATH as any
// program is.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef WEFTRUN_PATH
#error "WEFTRUN_PATH must name the weftrun binary"
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Outcome {
  int exit_code = -1;  // 128+S if weftrun itself died of signal S
  std::string out;
  std::string err;
  double seconds = 0;
};

// weftrun as a child of the test, its stdout and stderr captured.
class WeftrunProcess {
 public:
  explicit WeftrunProcess(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_env = {}) {
    int out[2], err[2];
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    std::vector<std::string> argv_s{WEFTRUN_PATH};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<std::string> env_s = extra_env;
    for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);  // extra ones first win
    std::vector<char*> argv = Pointers(argv_s), envp = Pointers(env_s);
    start_ = Clock::now();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(99);
    }
    ::close(out[1]);
    ::close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~WeftrunProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) ::close(out_fd_);
    if (err_fd_ >= 0) ::close(err_fd_);
  }

  pid_t pid() const { return pid_; }

  // Reads output until `ready(stdout so far)` holds; false if `limit_s` passes first.
  bool WaitForStdout(const std::function<bool(const std::string&)>& ready, double limit_s) {
    const Clock::time_point end = Clock::now() + Seconds(limit_s);
    while (!ready(outcome_.out)) {
      if (Clock::now() >= end || !ReadSome(end)) return false;
    }
    return true;
  }

  // Reads to the end of both streams and reaps weftrun; kills it if `limit_s` passes.
  Outcome Finish(double limit_s = 10) {
    const Clock::time_point end = Clock::now() + Seconds(limit_s);
    while (ReadSome(end)) {
    }
    if (out_fd_ >= 0 || err_fd_ >= 0) {
      ADD_FAILURE() << "weftrun still running after " << limit_s << " s; killing it";
      ::kill(pid_, SIGKILL);
    }
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    outcome_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    outcome_.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return outcome_;
  }

 private:
  static Clock::duration Seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }
  static std::vector<char*> Pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (std::string& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  }

  // One poll and the reads it allows; false once both streams ended or `end` passed.
  bool ReadSome(Clock::time_point end) {
    if (out_fd_ < 0 && err_fd_ < 0) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0) return false;
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(left.count())) <= 0) return Clock::now() < end;
    ReadInto(fds[0], out_fd_, outcome_.out);
    ReadInto(fds[1], err_fd_, outcome_.err);
    return true;
  }
  static void ReadInto(const pollfd& p, int& fd, std::string& into) {
    if (fd < 0 || p.revents == 0) return;
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<size_t>(n));
      return;
    }
    ::close(fd);
    fd = -1;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  Clock::time_point start_;
  Outcome outcome_;
};

Outcome RunWeftrun(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  return WeftrunProcess(args, env).Finish();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Whether `parts` occur in `text` in this order, all on the line where the first one is.
bool ContainsInOrder(const std::string& text, const std::vector<std::string>& parts) {
  size_t at = text.find(parts.at(0));
  if (at == std::string::npos) return false;
  const size_t end = text.find('\n', at + 1);
  for (size_t i = 1; i < parts.size(); ++i) {
    at = text.find(parts[i], at);
    if (at == std::string::npos || at > end) return false;
  }
  return true;
}

// Whether `text` holds `before`, a pid (digits), then `after`. (No std::regex: GCC 12 warns
// inside it under the sanitizers, and warnings are errors.)
bool ContainsWithPid(const std::string& text, const std::string& before, const std::string& after) {
  const size_t start = text.find(before);
  if (start == std::string::npos) return false;
  size_t pos = start + before.size();
  const size_t digits = pos;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
  return pos > digits && text.compare(pos, after.size(), after) == 0;
}

TEST(Weftrun, SetsTheEnvironmentOfEachRank) {
  const Outcome r = RunWeftrun({"-n", "3", "--", "sh", "-c",
                                "echo $WEFT_RANK $WEFT_WORLD_SIZE $WEFT_LOCAL_RANK "
                                "$WEFT_LOCAL_WORLD_SIZE $WEFT_STORE"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<int> ranks, ports;
  for (const std::string& text : Lines(r.out)) {
    int prefix = -1, rank = -1, local_rank = -1, port = -1, end = 0;
    ASSERT_EQ(std::sscanf(text.c_str(), "[%d] %d 3 %d 3 127.0.0.1:%d%n", &prefix, &rank,
                          &local_rank, &port, &end),
              4)
        << text;
    EXPECT_EQ(static_cast<size_t>(end), text.size()) << text;
    EXPECT_EQ(prefix, rank);
    EXPECT_EQ(local_rank, rank);
    ranks.insert(rank);
    ports.insert(port);
    EXPECT_GT(port, 0);
    EXPECT_LT(port, 65536);
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(ports.size(), 1u) << "every rank must be told the same store";
}

TEST(Weftrun, OverridesInheritedRankVariablesAndSetsTheBackend) {
  const std::vector<std::string> env = {"WEFT_RANK=99", "WEFT_BACKEND=inherited"};
  const std::string script = "echo $WEFT_RANK $WEFT_BACKEND";
  Outcome r = RunWeftrun({"-n", "1", "sh", "-c", script}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[0] 0 inherited\n");
  r = RunWeftrun({"-n", "1", "--backend", "gloo", "sh", "-c", script}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[0] 0 gloo\n");
}

// SPEC §8 "Store security": a fresh secret per job, the same for every rank of the job, and an
// inherited one is replaced.
TEST(Weftrun, GivesEveryRankTheJobsFreshSecret) {
  const std::vector<std::string> env = {"WEFT_STORE_TOKEN=inherited-token-0123456789"};
  std::set<std::string> jobs;
  for (int job = 0; job < 2; ++job) {
    const Outcome r = RunWeftrun({"-n", "3", "sh", "-c", "echo $WEFT_STORE_TOKEN"}, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> tokens;
    for (const std::string& text : Lines(r.out)) tokens.insert(text.substr(text.find(' ') + 1));
    ASSERT_EQ(tokens.size(), 1u) << r.out;
    const std::string token = *tokens.begin();
    EXPECT_EQ(token.size(), 64u) << token;
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
    jobs.insert(token);
  }
  EXPECT_EQ(jobs.size(), 2u) << "two jobs got the same secret";
}

// Every line is written in two pieces, so that weftrun's reads often end mid-line.
TEST(Weftrun, RelaysWholePrefixedLinesFromRanksPrintingFast) {
  constexpr int kRanks = 4, kLines = 2000;
  const Outcome r = RunWeftrun({"-n", std::to_string(kRanks), "sh", "-c",
                                "i=0; while [ $i -lt " + std::to_string(kLines) +
                                    " ]; do printf \"rank $WEFT_RANK line $i abcdefghijklm\"; "
                                    "printf \"nopqrstuvwxyz0123456789\\n\"; i=$((i+1)); done"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<int, int> next;  // rank -> the line number expected next
  for (const std::string& text : Lines(r.out)) {
    int prefix = -1, rank = -1, number = -1, end = 0;
    const int fields =
        std::sscanf(text.c_str(), "[%d] rank %d line %d abcdefghijklmnopqrstuvwxyz0123456789%n",
                    &prefix, &rank, &number, &end);
    ASSERT_TRUE(fields == 3 && static_cast<size_t>(end) == text.size() && prefix == rank)
        << "torn or mixed line: " << text;
    ASSERT_EQ(number, next[rank]) << "rank " << rank << " lines out of order";
    ++next[rank];
  }
  for (int rank = 0; rank < kRanks; ++rank) EXPECT_EQ(next[rank], kLines) << "rank " << rank;
}

TEST(Weftrun, KeepsStdoutAndStderrApartAndFlushesAnUnfinishedLastLine) {
  const Outcome r = RunWeftrun(
      {"-n", "2", "sh", "-c", "echo out$WEFT_RANK; echo err$WEFT_RANK >&2; printf tail$WEFT_RANK"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* rank : {"0", "1"}) {
    const std::string p = std::string("[") + rank + "] ";
    EXPECT_TRUE(Contains(r.out, p + "out" + rank + "\n")) << r.out;
    EXPECT_TRUE(Contains(r.out, p + "tail" + rank + "\n")) << r.out;
    EXPECT_TRUE(Contains(r.err, p + "err" + rank + "\n")) << r.err;
    EXPECT_FALSE(Contains(r.out, "err")) << r.out;
  }
}

TEST(Weftrun, NoPrefixPassesLinesThrough) {
  const Outcome r = RunWeftrun({"--no-prefix", "-n", "2", "sh", "-c", "echo hello"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello\nhello\n");
}

// The others sleep for 30 s; they must be gone well before the 3 s grace period, i.e. by the
// SIGTERM to their process group (the shell and its sleep child alike).
TEST(Weftrun, RankExitingNonZeroStopsTheOthers) {
  const Outcome r =
      RunWeftrun({"-n", "4", "sh", "-c", "if [ $WEFT_RANK = 1 ]; then exit 3; fi; sleep 30"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(ContainsWithPid(r.err, "weftrun: rank 1 (pid ",
                              ") exited with code 3; stopping the other 3 ranks\n"))
      << r.err;
  EXPECT_LT(r.seconds, 2.5);
}

TEST(Weftrun, RankKilledBySignalIsNamed) {
  const Outcome r =
      RunWeftrun({"-n", "3", "sh", "-c", "if [ $WEFT_RANK = 2 ]; then kill -9 $$; fi; sleep 30"});
  EXPECT_EQ(r.exit_code, 128 + 9) << r.err;
  EXPECT_TRUE(ContainsWithPid(r.err, "weftrun: rank 2 (pid ",
                              ") was killed by signal 9 (Killed); stopping the other 2 ranks\n"))
      << r.err;
  EXPECT_LT(r.seconds, 2.5);
}

TEST(Weftrun, TimeoutStopsEverythingAndExits124) {
  const Outcome r = RunWeftrun({"-n", "2", "--timeout", "0.5", "sleep", "30"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_TRUE(Contains(r.err, "timed out after 0.5 s; stopping the ranks still running: 0, 1"))
      << r.err;
  EXPECT_GE(r.seconds, 0.5);
  EXPECT_LT(r.seconds, 2.5);
}

TEST(Weftrun, RanksIgnoringSigtermGetSigkillAfterTheGracePeriod) {
  const Outcome r = RunWeftrun(
      {"-n", "2", "--timeout", "0.3", "--grace", "0.5", "sh", "-c", "trap '' TERM; sleep 30"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_TRUE(Contains(r.err, "sending SIGKILL: 0, 1")) << r.err;
  EXPECT_GE(r.seconds, 0.8);
  EXPECT_LT(r.seconds, 2.8);
}

// Each rank says when it is ready and reports the signal it gets.
Outcome SignalWhenReady(int signal, const std::string& trap) {
  WeftrunProcess weftrun(
      {"-n", "3", "sh", "-c",
       "trap '" + trap + "' INT TERM; echo ready; while :; do sleep 0.05; done"});
  const bool ready =
      weftrun.WaitForStdout([](const std::string& out) { return Lines(out).size() == 3; }, 5);
  EXPECT_TRUE(ready) << "the ranks did not start";
  ::kill(weftrun.pid(), signal);
  return weftrun.Finish();
}

TEST(Weftrun, SigintReachesEveryRankAndWeftrunExitsNonZero) {
  const Outcome r = SignalWhenReady(SIGINT, "echo got INT; exit 5");
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  for (const char* rank : {"0", "1", "2"}) {
    EXPECT_TRUE(Contains(r.out, std::string("[") + rank + "] got INT\n")) << r.out;
  }
  EXPECT_TRUE(Contains(r.err, "received signal 2 (Interrupt)")) << r.err;
  EXPECT_LT(r.seconds, 4);
}

// Ranks that shut down cleanly on SIGTERM still leave weftrun's status non-zero: the job did
// not finish, it was stopped.
TEST(Weftrun, SigtermIsForwardedAndReportedInTheExitStatus) {
  const Outcome r = SignalWhenReady(SIGTERM, "echo stopping; exit 0");
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 6u) << r.out;
}

TEST(Weftrun, ProgramNotFound) {
  const Outcome r = RunWeftrun({"-n", "2", "weftrun-test-no-such-program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_TRUE(Contains(r.err,
                       "cannot start rank 0: cannot run 'weftrun-test-no-such-program': "
                       "No such file or directory"))
      << r.err;
}

TEST(Weftrun, UsageErrorsExit2) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"sh"},
      {"-n", "0", "sh"},
      {"-n", "4097", "sh"},
      {"-n", "two", "sh"},
      {"-n", "2"},
      {"-n", "2", "--bogus", "sh"},
      {"-n", "2", "--timeout", "soon", "sh"},
  };
  for (const std::vector<std::string>& args : cases) {
    const Outcome r = RunWeftrun(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args);
    EXPECT_TRUE(Contains(r.err, "weftrun: ")) << r.err;
    EXPECT_TRUE(Contains(r.err, "--help")) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

// --print-params: every libweft variable with its value and where it came from; a malformed
// one is shown, reported and makes the exit status 1. ("WEFT_BACKEND=" is unset: empty.)
TEST(Weftrun, PrintParamsListsTheHostVariables) {
  const Outcome r = RunWeftrun(
      {"--print-params"}, {"WEFT_BACKEND=", "WEFT_ALLTOALL_CHUNK_BYTES=4K", "WEFT_TIMEOUT_MS="});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("libweft:\nNAME", 0), 0u) << r.out;
  for (const char* name : {"WEFT_BACKEND ", "WEFT_TIMEOUT_MS ", "WEFT_CONNECT_TIMEOUT_MS ",
                           "WEFT_LOG_LEVEL ", "WEFT_RANK ", "WEFT_COPY_SKEW_SLOW "})
    EXPECT_TRUE(Contains(r.out, std::string("\n") + name)) << name << " missing:\n" << r.out;
  EXPECT_TRUE(ContainsInOrder(
      r.out, {"\nWEFT_ALLTOALL_CHUNK_BYTES ", " 4K ", " 8M ", " env ", " must-match ", " tuning "}))
      << r.out;
  EXPECT_TRUE(ContainsInOrder(r.out, {"\nWEFT_TIMEOUT_MS ", " 300000 ", " 300000 ", " default "}))
      << r.out;
}

TEST(Weftrun, PrintParamsReportsAMalformedValue) {
  const Outcome r = RunWeftrun({"--print-params"}, {"WEFT_BACKEND=", "WEFT_CONNECT_TIMEOUT_MS=2s"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.out, "'2s' (invalid)")) << r.out;
  EXPECT_TRUE(Contains(r.out,
                       "error: WEFT_CONNECT_TIMEOUT_MS is '2s' but must be a whole number "
                       "of milliseconds"))
      << r.out;
}

#ifdef WEFTRUN_TEST_UCX
// Naming a backend lists its plugin's variables too, read from the plugin's own table.
TEST(Weftrun, PrintParamsListsTheBackendsVariables) {
  // Loading libucx: its memory hooks fight the sanitizers' allocator, and it leaks what its
  // constructors allocate (tests/CMakeLists.txt, weft_backend_test_env).
  const std::vector<std::string> ucx = {"UCX_MEM_MALLOC_HOOKS=no", "UCX_MEM_MMAP_HOOK_MODE=none",
                                        "ASAN_OPTIONS=detect_leaks=0"};
  std::vector<std::string> env = {"WEFT_UCX_SEGMENT_BYTES=1M", "WEFT_UCX_SPIN_US="};
  env.insert(env.end(), ucx.begin(), ucx.end());
  const Outcome r = RunWeftrun({"--print-params", "--backend", "ucx"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "\nucx plugin (")) << r.out;
  EXPECT_TRUE(ContainsInOrder(
      r.out, {"\nWEFT_UCX_SEGMENT_BYTES ", " 1M ", " 256K ", " env ", " must-match "}))
      << r.out;
  EXPECT_TRUE(ContainsInOrder(r.out, {"\nWEFT_UCX_SPIN_US ", " (unset) ", " - ", " default "}))
      << r.out;
  env = ucx;
  env.push_back("WEFT_UCX_BOARD=maybe");
  const Outcome bad = RunWeftrun({"--print-params", "--backend", "ucx"}, env);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(Contains(bad.out, "error: WEFT_UCX_BOARD is 'maybe' but must be 0 or 1")) << bad.out;
}
#endif

TEST(Weftrun, PrintParamsNamesAPluginItCannotFind) {
  const Outcome r = RunWeftrun({"--print-params", "--backend", "no-such-backend"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "backend plugin \"no-such-backend\" not found")) << r.err;
}

TEST(Weftrun, HelpPrintsUsage) {
  const Outcome r = RunWeftrun({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.out, "usage: weftrun -n N")) << r.out;
  EXPECT_TRUE(Contains(r.out, "exit status")) << r.out;
}

}  // namespace
