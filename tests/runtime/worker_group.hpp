// Real worker processes for the fault tests, started with fork/exec (not weftrun, which stops
// every rank when one dies: the very thing these tests must observe). Each worker gets its own
// report pipe (on kReportFd) and stdin pipe (the driver's "go on" signal). The group owns its
// processes: whatever happens in a test, its destructor kills and reaps every one.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/runtime/report.hpp"

namespace weft::test {

using Clock = std::chrono::steady_clock;

// A file descriptor closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release();
  void reset();

 private:
  int fd_ = -1;
};

struct WorkerSpec {
  std::vector<std::string> args;  // after the program path
  std::vector<std::string> env;   // NAME=value, on top of the driver's environment
};

class WorkerGroup {
 public:
  // Pins every worker to at most `cpus` CPUs when cpus > 0 (the 2-core CI machine anywhere).
  WorkerGroup(const std::string& program, const std::vector<WorkerSpec>& specs, int cpus = 0);
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;
  ~WorkerGroup();

  size_t size() const { return workers_.size(); }
  bool started() const { return started_; }

  // Reads reports until done() holds or the deadline passes (or every pipe is closed);
  // returns done().
  bool ReadUntil(const std::function<bool()>& done, Clock::time_point deadline);
  // The first report of `kind` from worker i, if any arrived.
  std::optional<Report> Find(size_t i, const std::string& kind) const;
  bool Has(size_t i, const std::string& kind) const { return Find(i, kind).has_value(); }
  const std::vector<Report>& reports(size_t i) const { return workers_.at(i).received; }

  void Signal(size_t i, int sig);
  // Ends worker i's hold (see fault_worker.cpp).
  void Release(size_t i);
  // Waits for worker i to exit; its wait status, or nullopt if the deadline passed (it is then
  // killed). A worker reaped earlier returns the same status again.
  std::optional<int> Reap(size_t i, Clock::time_point deadline);

 private:
  struct Worker {
    pid_t pid = -1;
    Fd reports;  // read end
    Fd go;       // write end of the worker's stdin
    std::string pending;
    std::vector<Report> received;
    bool eof = false;
    std::optional<int> wait_status;
  };
  void Spawn(const std::string& program, const WorkerSpec& spec, int cpus);
  void Drain(Worker& w);

  std::vector<Worker> workers_;
  bool started_ = true;
};

// A port on 127.0.0.1 that was free a moment ago (the store binds it right after).
int PickFreePort();

// The environment every worker starts from: the driver's, without launcher variables that
// would compete with the WEFT_* ones set per worker.
std::vector<std::string> BaseEnvironment();

}  // namespace weft::test
