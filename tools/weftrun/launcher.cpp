#include "tools/weftrun/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/weftrun/exit_status.hpp"
#include "tools/weftrun/free_port.hpp"
#include "tools/weftrun/job_token.hpp"
#include "tools/weftrun/output_relay.hpp"
#include "tools/weftrun/rank_env.hpp"
#include "tools/weftrun/signal_pipe.hpp"
#include "tools/weftrun/spawn.hpp"
#include "tools/weftrun/unique_fd.hpp"

namespace weft::tools {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 64 * 1024;
// Bounds the final read of a finished rank's pipe: a descendant it left behind may keep
// writing, and weftrun must still get on with its exit.
constexpr int kMaxDrainReads = 256;

Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string FormatSeconds(double seconds) {
  std::ostringstream text;
  text << seconds << " s";
  return text.str();
}

std::string Ranks(size_t count) {
  return std::to_string(count) + (count == 1 ? " rank" : " ranks");
}

void Report(const std::string& message) { WriteAll(2, "weftrun: " + message + "\n"); }

struct Stream {
  UniqueFd fd;
  OutputRelay relay;
};

struct Rank {
  int rank = 0;
  pid_t pid = -1;
  bool running = true;
  Stream out;
  Stream err;
};

enum class ReadResult { kData, kWouldBlock, kClosed };

class Job {
 public:
  explicit Job(const Options& opts) : opts_(opts), buffer_(kReadChunk) {}
  int Run();

 private:
  Status Start();
  void StartRanks(const JobEnv& env, int stdin_fd);
  void Poll();
  ReadResult ReadOnce(Stream& stream);
  void Drain(Stream& stream);
  void HandleSignals();
  void ReapExited();
  void OnRankExit(Rank& rank, int wait_status);
  void Forward(int signal);
  void BeginStop(int exit_code);
  void SignalRunning(int signal);
  void CheckDeadlines();
  int PollTimeoutMs() const;
  std::string RunningRankList() const;

  const Options& opts_;
  std::vector<char> buffer_;
  SignalPipe signals_;
  std::vector<Rank> ranks_;
  std::unordered_map<pid_t, size_t> by_pid_;
  size_t running_ = 0;
  std::optional<int> exit_code_;  // set by whatever first ends the job
  std::optional<Clock::time_point> timeout_at_;
  std::optional<Clock::time_point> kill_at_;  // set once stopping: SIGKILL for stragglers
  bool killed_ = false;
};

int Job::Run() {
  if (const Status status = Start(); !status.ok()) {
    Report(status.message());
    return kExitInternal;
  }
  while (running_ > 0) {
    Poll();
    HandleSignals();
    CheckDeadlines();
  }
  for (Rank& rank : ranks_) {
    Drain(rank.out);
    Drain(rank.err);
  }
  return exit_code_.value_or(0);
}

Status Job::Start() {
  WEFT_RETURN_IF_ERROR(signals_.Install());
  WEFT_ASSIGN_OR_RETURN(const int port, PickFreePort());
  // Ranks get no input: several processes sharing a terminal's stdin would steal each
  // other's lines.
  const UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null) {
    return {Code::kSystem, std::string("cannot open /dev/null: ") + std::strerror(errno)};
  }
  WEFT_ASSIGN_OR_RETURN(std::string token, NewJobToken());
  if (opts_.timeout_s) timeout_at_ = Clock::now() + Seconds(*opts_.timeout_s);
  StartRanks({opts_.ranks, "127.0.0.1:" + std::to_string(port), opts_.backend, std::move(token)},
             dev_null.get());
  return Status::Ok();
}

void Job::StartRanks(const JobEnv& env, int stdin_fd) {
  const std::vector<std::string> base = CurrentEnvironment();
  const std::optional<rlimit> fd_limit = RaiseFdLimit(2 * static_cast<size_t>(opts_.ranks) + 64);
  ranks_.reserve(static_cast<size_t>(opts_.ranks));
  for (int r = 0; r < opts_.ranks; ++r) {
    const std::vector<std::string> rank_env = RankEnvironment(base, env, r);
    Result<SpawnedRank> spawned = SpawnRank({opts_.command, rank_env, stdin_fd, fd_limit});
    if (!spawned.ok()) {
      Report("cannot start rank " + std::to_string(r) + ": " + spawned.status().message());
      BeginStop(kExitCannotStart);
      return;
    }
    const std::string prefix = opts_.prefix ? "[" + std::to_string(r) + "] " : "";
    by_pid_[spawned->pid] = ranks_.size();
    ranks_.push_back(Rank{r, spawned->pid, true,
                          Stream{std::move(spawned->out), OutputRelay(prefix, 1)},
                          Stream{std::move(spawned->err), OutputRelay(prefix, 2)}});
    ++running_;
  }
}

void Job::Poll() {
  std::vector<pollfd> fds{{signals_.fd(), POLLIN, 0}};
  std::vector<Stream*> streams{nullptr};
  for (Rank& rank : ranks_) {
    for (Stream* stream : {&rank.out, &rank.err}) {
      if (!stream->fd) continue;
      fds.push_back({stream->fd.get(), POLLIN, 0});
      streams.push_back(stream);
    }
  }
  if (::poll(fds.data(), fds.size(), PollTimeoutMs()) <= 0) return;  // timeout, or EINTR
  for (size_t i = 1; i < fds.size(); ++i) {
    if (fds[i].revents != 0) ReadOnce(*streams[i]);
  }
}

ReadResult Job::ReadOnce(Stream& stream) {
  for (;;) {
    const ssize_t n = ::read(stream.fd.get(), buffer_.data(), buffer_.size());
    if (n > 0) {
      stream.relay.Feed({buffer_.data(), static_cast<size_t>(n)});
      return ReadResult::kData;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ReadResult::kWouldBlock;
    stream.fd.Reset();  // end of file, or an error that reading again would not fix
    return ReadResult::kClosed;
  }
}

// Relays what is already in the pipe and the unfinished last line. The pipe stays open if a
// descendant of the rank still holds it; what that writes later is relayed as usual.
void Job::Drain(Stream& stream) {
  for (int i = 0; i < kMaxDrainReads && stream.fd; ++i) {
    if (ReadOnce(stream) != ReadResult::kData) break;
  }
  stream.relay.Finish();
}

void Job::HandleSignals() {
  const SignalPipe::Events events = signals_.Take();
  if (events.stop_signal != 0) Forward(events.stop_signal);
  if (events.child_exited) ReapExited();
}

void Job::ReapExited() {
  for (;;) {
    int wait_status = 0;
    const pid_t pid = ::waitpid(-1, &wait_status, WNOHANG);
    if (pid <= 0) return;  // none left that has exited
    const auto found = by_pid_.find(pid);
    if (found != by_pid_.end()) OnRankExit(ranks_[found->second], wait_status);
  }
}

void Job::OnRankExit(Rank& rank, int wait_status) {
  rank.running = false;
  --running_;
  // The rank's last words belong before anything weftrun says about it.
  Drain(rank.out);
  Drain(rank.err);
  // Only the failure that ends the job is reported; the ones it causes are noise.
  if (!WaitStatusFailed(wait_status) || kill_at_) return;
  std::string message = "rank " + std::to_string(rank.rank) + " (pid " + std::to_string(rank.pid) +
                        ") " + DescribeWaitStatus(wait_status);
  if (running_ == 1) message += "; stopping the other rank";
  if (running_ > 1) message += "; stopping the other " + Ranks(running_);
  Report(message);
  BeginStop(ExitCodeForFailure(wait_status));
}

void Job::Forward(int signal) {
  Report("received " + DescribeSignal(signal) + "; forwarding it to " + Ranks(running_) +
         " still running");
  if (!exit_code_) exit_code_ = 128 + signal;
  SignalRunning(signal);
  if (!kill_at_) kill_at_ = Clock::now() + Seconds(opts_.grace_s);
}

void Job::BeginStop(int exit_code) {
  if (!exit_code_) exit_code_ = exit_code;
  if (kill_at_) return;  // already stopping
  SignalRunning(SIGTERM);
  kill_at_ = Clock::now() + Seconds(opts_.grace_s);
}

// Signals each running rank's process group, which includes whatever it started (a shell
// script's children). A rank that exited but is not reaped yet still owns its group id, so
// the id cannot have been reused.
void Job::SignalRunning(int signal) {
  for (const Rank& rank : ranks_) {
    if (rank.running && ::kill(-rank.pid, signal) != 0) ::kill(rank.pid, signal);
  }
}

void Job::CheckDeadlines() {
  const Clock::time_point now = Clock::now();
  if (timeout_at_ && now >= *timeout_at_) {
    timeout_at_.reset();
    if (!kill_at_ && running_ > 0) {
      Report("timed out after " + FormatSeconds(*opts_.timeout_s) +
             "; stopping the ranks still running: " + RunningRankList());
      BeginStop(kExitTimeout);
    }
  }
  if (kill_at_ && !killed_ && now >= *kill_at_) {
    killed_ = true;
    if (running_ == 0) return;
    Report(Ranks(running_) + " still running after the " + FormatSeconds(opts_.grace_s) +
           " grace period, sending SIGKILL: " + RunningRankList());
    SignalRunning(SIGKILL);
  }
}

int Job::PollTimeoutMs() const {
  std::optional<Clock::time_point> next = timeout_at_;
  if (kill_at_ && !killed_ && (!next || *kill_at_ < *next)) next = kill_at_;
  if (!next) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, INT_MAX));
}

std::string Job::RunningRankList() const {
  std::string list;
  for (const Rank& rank : ranks_) {
    if (!rank.running) continue;
    if (!list.empty()) list += ", ";
    list += std::to_string(rank.rank);
  }
  return list;
}

}  // namespace

int RunJob(const Options& opts) { return Job(opts).Run(); }

}  // namespace weft::tools
