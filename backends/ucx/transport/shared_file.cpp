#include "backends/ucx/transport/shared_file.hpp"

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace weft::backends::ucx_plugin {
namespace {

void CloseIfOpen(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

OwnFile::~OwnFile() {
  if (base_ != nullptr) munmap(base_, bytes_);
  CloseIfOpen(&fd_);
  CloseIfOpen(&wake_fd_);
}

bool OwnFile::Create(const char* name, size_t bytes) {
  fd_ = static_cast<int>(syscall(SYS_memfd_create, name, MFD_CLOEXEC));
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  void* p = MAP_FAILED;
  if (fd_ >= 0 && wake_fd_ >= 0 && ftruncate(fd_, static_cast<off_t>(bytes)) == 0)
    p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    CloseIfOpen(&fd_);
    CloseIfOpen(&wake_fd_);
    return false;
  }
  base_ = static_cast<char*>(p);
  bytes_ = bytes;
  return true;
}

void OwnFile::DrainWake() const {
  uint64_t count = 0;
  if (wake_fd_ >= 0) (void)!read(wake_fd_, &count, sizeof(count));
}

PeerFile::~PeerFile() {
  if (base_ != nullptr) munmap(base_, bytes_);
  CloseIfOpen(&wake_fd_);
}

bool PeerFile::Open(pid_t pid, int fd, int wake_fd, size_t bytes, bool writable) {
  if (fd < 0 || wake_fd < 0 || bytes == 0) return false;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return false;
  int file = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0));
  int wake = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, wake_fd, 0));
  close(pidfd);
  void* p = MAP_FAILED;
  if (file >= 0 && wake >= 0)
    p = mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, file, 0);
  CloseIfOpen(&file);  // the mapping keeps the memory
  if (p == MAP_FAILED) {
    CloseIfOpen(&wake);
    return false;
  }
  base_ = static_cast<char*>(p);
  bytes_ = bytes;
  wake_fd_ = wake;
  return true;
}

void PeerFile::Wake() const {
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
}

}  // namespace weft::backends::ucx_plugin
