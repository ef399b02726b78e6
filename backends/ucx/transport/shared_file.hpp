// Memory shared with the other processes of this host: a memfd plus an eventfd, made by one
// process and mapped by others through pidfd_getfd (which needs only the two descriptor numbers
// and the right to ptrace the owner, the right process_vm_readv needs too). The grant tables
// (grants.hpp) and the boards (board.hpp) are such files.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace weft::backends::ucx_plugin {

// The owner's side: the file mapped read-write, and the eventfd others signal it with.
class OwnFile {
 public:
  OwnFile() = default;
  ~OwnFile();
  OwnFile(const OwnFile&) = delete;
  OwnFile& operator=(const OwnFile&) = delete;

  // Creates a file of `bytes` (sparse: pages come when touched); false when the system
  // refuses (nothing is left open then).
  bool Create(const char* name, size_t bytes);
  char* base() const { return base_; }
  int fd() const { return fd_; }
  int wake_fd() const { return wake_fd_; }
  // Empties the eventfd's counter (after a wake-up).
  void DrainWake() const;

 private:
  char* base_ = nullptr;
  size_t bytes_ = 0;
  int fd_ = -1;
  int wake_fd_ = -1;
};

// Another process's file, mapped (read-only unless `writable`), with a duplicate of its eventfd.
class PeerFile {
 public:
  PeerFile() = default;
  ~PeerFile();
  PeerFile(const PeerFile&) = delete;
  PeerFile& operator=(const PeerFile&) = delete;

  // Maps the `bytes` of file `fd` of process `pid` and duplicates its eventfd `wake_fd`; false
  // when that is not possible (nothing is left open then).
  bool Open(pid_t pid, int fd, int wake_fd, size_t bytes, bool writable);
  char* base() const { return base_; }
  // Signals the owner's eventfd.
  void Wake() const;

 private:
  char* base_ = nullptr;
  size_t bytes_ = 0;
  int wake_fd_ = -1;
};

}  // namespace weft::backends::ucx_plugin
