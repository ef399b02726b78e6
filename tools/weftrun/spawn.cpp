#include "tools/weftrun/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace weft::tools {
namespace {

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Status SystemError(const std::string& what, int err) {
  return {Code::kSystem, what + ": " + std::strerror(err)};
}

Result<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return SystemError("cannot create a pipe", errno);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Everything the child needs, prepared before fork(): after it, the child only makes system
// calls (no allocation), as is safe in a forked child.
struct ChildPlan {
  std::vector<char*> argv;
  std::vector<char*> envp;
  int stdin_fd, out_fd, err_fd, error_fd;
  pid_t parent;
  sigset_t mask;  // weftrun's signal mask before it blocked the signals it handles
  std::optional<rlimit> fd_limit;
};

std::vector<char*> CStrings(std::span<const std::string> strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void FailChild(int error_fd) {
  const int err = errno;
  [[maybe_unused]] const ssize_t n = ::write(error_fd, &err, sizeof err);
  ::_exit(127);
}

[[noreturn]] void ExecChild(const ChildPlan& plan) {
  ::setpgid(0, 0);
#ifdef __linux__
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != plan.parent) ::_exit(127);  // weftrun died before prctl took effect
#endif
  if (::dup2(plan.stdin_fd, 0) < 0 || ::dup2(plan.out_fd, 1) < 0 || ::dup2(plan.err_fd, 2) < 0) {
    FailChild(plan.error_fd);
  }
  // Dispositions weftrun changed, and any ignored ones it inherited for them, go back to the
  // defaults: an ignored SIGPIPE or SIGINT would survive exec and change the rank's behaviour.
  for (const int sig : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE}) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &plan.mask, nullptr);
  if (plan.fd_limit) ::setrlimit(RLIMIT_NOFILE, &*plan.fd_limit);
  ::execvpe(plan.argv[0], plan.argv.data(), plan.envp.data());
  FailChild(plan.error_fd);
}

// Blocks the signals weftrun handles for its lifetime: a Ctrl-C landing between fork() and
// exec() would otherwise run weftrun's handler in the child and be swallowed there.
class BlockHandledSignals {
 public:
  BlockHandledSignals() {
    sigset_t block;
    sigemptyset(&block);
    for (const int sig : {SIGINT, SIGTERM, SIGCHLD}) sigaddset(&block, sig);
    ::sigprocmask(SIG_BLOCK, &block, &previous_);
  }
  ~BlockHandledSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_;
};

// The child's exec() error, or 0 once exec() succeeded (the CLOEXEC pipe closed).
int ReadExecError(int fd) {
  int err = 0;
  ssize_t n;
  do {
    n = ::read(fd, &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof err) ? err : 0;
}

}  // namespace

Result<SpawnedRank> SpawnRank(const SpawnSpec& spec) {
  WEFT_ASSIGN_OR_RETURN(Pipe out, MakePipe());
  WEFT_ASSIGN_OR_RETURN(Pipe err, MakePipe());
  WEFT_ASSIGN_OR_RETURN(Pipe exec_status, MakePipe());
  BlockHandledSignals blocked;
  const ChildPlan plan{
      CStrings(spec.command), CStrings(spec.env),      spec.stdin_fd, out.write.get(),
      err.write.get(),        exec_status.write.get(), ::getpid(),    blocked.previous(),
      spec.child_fd_limit};
  const pid_t pid = ::fork();
  if (pid < 0) return SystemError("fork", errno);
  if (pid == 0) ExecChild(plan);
  // Also set here: whichever of parent and child runs first, the group exists before
  // weftrun may signal it.
  ::setpgid(pid, pid);
  out.write.Reset();
  err.write.Reset();
  exec_status.write.Reset();
  if (const int exec_errno = ReadExecError(exec_status.read.get()); exec_errno != 0) {
    ::waitpid(pid, nullptr, 0);
    return SystemError("cannot run '" + spec.command.front() + "'", exec_errno);
  }
  for (const UniqueFd* fd : {&out.read, &err.read}) ::fcntl(fd->get(), F_SETFL, O_NONBLOCK);
  return SpawnedRank{pid, std::move(out.read), std::move(err.read)};
}

std::optional<rlimit> RaiseFdLimit(size_t needed) {
  rlimit previous{};
  if (::getrlimit(RLIMIT_NOFILE, &previous) != 0 || previous.rlim_cur >= needed) {
    return std::nullopt;
  }
  rlimit raised = previous;
  raised.rlim_cur = std::min<rlim_t>(needed, previous.rlim_max);
  if (::setrlimit(RLIMIT_NOFILE, &raised) != 0) return std::nullopt;
  return previous;
}

}  // namespace weft::tools
