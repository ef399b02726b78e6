#include "tests/runtime/worker_group.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <thread>

extern char** environ;

namespace weft::test {

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

std::string_view NameOf(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// Launcher variables of SPEC §8 that a worker must not see: only its WEFT_* set counts.
bool IsLauncherVariable(std::string_view name) {
  static constexpr std::string_view kExact[] = {"RANK",        "WORLD_SIZE",  "LOCAL_RANK",
                                                "MASTER_ADDR", "MASTER_PORT", "LOCAL_WORLD_SIZE"};
  static constexpr std::string_view kPrefixes[] = {"OMPI_COMM_WORLD_", "PMI_", "SLURM_"};
  if (std::find(std::begin(kExact), std::end(kExact), name) != std::end(kExact)) return true;
  for (std::string_view p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  // Keep the developer's log level and where libraries are found (the plugin path, the NCCL
  // backend's libraries: the fakes in CI); every other WEFT_* is set per test.
  static constexpr std::string_view kKept[] = {"WEFT_LOG_LEVEL", "WEFT_PLUGIN_PATH",
                                               "WEFT_NCCL_LIBRARY", "WEFT_CUDART_LIBRARY"};
  return name.substr(0, 5) == "WEFT_" &&
         std::find(std::begin(kKept), std::end(kKept), name) == std::end(kKept);
}

// The first `cpus` CPUs this process may run on.
cpu_set_t FirstCpus(int cpus) {
  cpu_set_t allowed, out;
  CPU_ZERO(&out);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return allowed;
  for (int c = 0, taken = 0; c < CPU_SETSIZE && taken < cpus; ++c) {
    if (CPU_ISSET(c, &allowed)) {
      CPU_SET(c, &out);
      ++taken;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> BaseEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (!IsLauncherVariable(NameOf(*e))) env.emplace_back(*e);
  return env;
}

int PickFreePort() {
  Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (sock.get() < 0 || ::bind(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return -1;
  return ntohs(addr.sin_port);
}

WorkerGroup::WorkerGroup(const std::string& program, const std::vector<WorkerSpec>& specs,
                         int cpus) {
  workers_.reserve(specs.size());
  for (const WorkerSpec& spec : specs) Spawn(program, spec, cpus);
}

void WorkerGroup::Spawn(const std::string& program, const WorkerSpec& spec, int cpus) {
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> args{program};
  args.insert(args.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env = spec.env;  // first: getenv returns the first match
  for (std::string& e : BaseEnvironment()) {
    const bool overridden = std::any_of(spec.env.begin(), spec.env.end(),
                                        [&](const auto& s) { return NameOf(s) == NameOf(e); });
    if (!overridden) env.push_back(std::move(e));
  }
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  for (std::string& e : env) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const cpu_set_t cpu_mask = FirstCpus(cpus);

  // Close-on-exec, so that no worker holds another's pipe open past that worker's exit.
  int report[2], go[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    started_ = false;
    return;
  }
  if (::pipe2(go, O_CLOEXEC) != 0) {
    ::close(report[0]);
    ::close(report[1]);
    started_ = false;
    return;
  }
  Worker w;
  w.reports = Fd(report[0]);
  w.go = Fd(go[1]);
  Fd report_write(report[1]), go_read(go[0]);
  const pid_t parent = ::getpid();
  w.pid = ::fork();
  if (w.pid == 0) {
    // If the driver dies (a ctest timeout), the worker dies with it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (::dup2(go_read.get(), STDIN_FILENO) < 0) ::_exit(127);
    if (report_write.get() == kReportFd) {
      ::fcntl(kReportFd, F_SETFD, 0);
    } else if (::dup2(report_write.get(), kReportFd) < 0) {
      ::_exit(127);
    }
    if (cpus > 0) ::sched_setaffinity(0, sizeof cpu_mask, &cpu_mask);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  if (w.pid < 0) started_ = false;
  workers_.push_back(std::move(w));
}

WorkerGroup::~WorkerGroup() {
  for (Worker& w : workers_) {
    if (w.pid <= 0 || w.wait_status) continue;
    ::kill(w.pid, SIGKILL);  // works on stopped processes too
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void WorkerGroup::Drain(Worker& w) {
  char buf[4096];
  const ssize_t n = ::read(w.reports.get(), buf, sizeof buf);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    w.eof = true;
    return;
  }
  w.pending.append(buf, static_cast<size_t>(n));
  for (size_t nl; (nl = w.pending.find('\n')) != std::string::npos;) {
    if (auto r = ParseReport(w.pending.substr(0, nl))) w.received.push_back(std::move(*r));
    w.pending.erase(0, nl + 1);
  }
}

bool WorkerGroup::ReadUntil(const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : workers_) {
      if (w.eof || w.reports.get() < 0) continue;
      fds.push_back({w.reports.get(), POLLIN, 0});
      owners.push_back(&w);
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (fds.empty() || left <= 0) return done();
    const int n = ::poll(fds.data(), fds.size(), static_cast<int>(left) + 1);
    if (n < 0 && errno != EINTR) return done();
    for (size_t k = 0; n > 0 && k < fds.size(); ++k)
      if (fds[k].revents != 0) Drain(*owners[k]);
  }
  return true;
}

std::optional<Report> WorkerGroup::Find(size_t i, const std::string& kind) const {
  for (const Report& r : workers_.at(i).received)
    if (r.kind == kind) return r;
  return std::nullopt;
}

void WorkerGroup::Signal(size_t i, int sig) {
  const Worker& w = workers_.at(i);
  if (w.pid > 0 && !w.wait_status) ::kill(w.pid, sig);
}

void WorkerGroup::Release(size_t i) { workers_.at(i).go.reset(); }

std::optional<int> WorkerGroup::Reap(size_t i, Clock::time_point deadline) {
  Worker& w = workers_.at(i);
  if (w.wait_status || w.pid <= 0) return w.wait_status;
  // The report pipe closes when the worker exits: block on it rather than poll waitpid.
  ReadUntil([&] { return w.eof; }, deadline);
  while (true) {
    int status = 0;
    const pid_t got = ::waitpid(w.pid, &status, WNOHANG);
    if (got == w.pid) {
      w.wait_status = status;
      return status;
    }
    if (got < 0 && errno != EINTR) return std::nullopt;
    if (Clock::now() >= deadline) break;
    // Only between the pipe closing and the exit becoming visible: a few milliseconds.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(w.pid, SIGKILL);
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  w.wait_status = status;
  return std::nullopt;
}

}  // namespace weft::test
