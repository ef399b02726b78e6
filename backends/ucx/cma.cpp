#include "backends/ucx/cma.hpp"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace weft::backends::ucx_plugin {
namespace {

std::string ReadLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Boot id plus the PID namespace: processes that agree on both can name each other by pid.
std::string HostKey() {
  std::string key = ReadLine("/proc/sys/kernel/random/boot_id");
  struct stat ns {};
  if (key.empty() || stat("/proc/self/ns/pid", &ns) != 0) return {};
  return key + "/" + std::to_string(ns.st_dev) + ":" + std::to_string(ns.st_ino);
}

// Yama restricts process_vm_readv to ancestors at scope 1 (allowed here by PR_SET_PTRACER)
// and to privileged processes at 2 and 3.
bool PtraceAllowed() {
  const std::string scope = ReadLine("/proc/sys/kernel/yama/ptrace_scope");
  if (scope.empty() || scope == "0") return true;
  if (scope != "1") return false;
  return prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) == 0;
}

// A read of our own memory: fails where a seccomp filter blocks the call (containers).
bool SelfReadWorks() {
  uint64_t src = 0x1234, dst = 0;
  std::string why;
  return ReadRemote(getpid(), reinterpret_cast<uint64_t>(&src), &dst, sizeof(dst), &why) ==
             WEFT_OK &&
         dst == src;
}

}  // namespace

CmaIdentity LocalCmaIdentity(uint64_t threshold) {
  CmaIdentity id;
  id.pid = getpid();
  const std::string key = HostKey();
  if (threshold == 0 || key.empty() || key.size() >= sizeof(id.host) || !PtraceAllowed() ||
      !SelfReadWorks())
    return id;  // threshold 0: not taking part
  std::memcpy(id.host, key.data(), key.size());
  id.threshold = threshold;
  return id;
}

uint64_t PairThreshold(const CmaIdentity& mine, const CmaIdentity& theirs) {
  if (mine.threshold == 0 || theirs.threshold == 0 || theirs.magic != kDescriptorMagic) return 0;
  if (std::strncmp(mine.host, theirs.host, sizeof(mine.host)) != 0) return 0;
  return std::max(mine.threshold, theirs.threshold);
}

weft_status_t ReadRemote(int64_t pid, uint64_t remote, void* local, uint64_t length,
                         std::string* why) {
  char* to = static_cast<char*>(local);
  uint64_t done = 0;
  while (done < length) {
    // The kernel moves at most MAX_RW_COUNT (about 2 GiB) per call and may stop early.
    const uint64_t chunk = std::min<uint64_t>(length - done, uint64_t{1} << 30);
    iovec l{to + done, chunk};
    iovec r{reinterpret_cast<void*>(remote + done), chunk};
    const ssize_t n = process_vm_readv(static_cast<pid_t>(pid), &l, 1, &r, 1, 0);
    if (n > 0) {
      done += static_cast<uint64_t>(n);
      continue;
    }
    const int err = n == 0 ? EFAULT : errno;
    if (err == EINTR) continue;
    *why = "process_vm_readv from pid " + std::to_string(pid) + " failed: " + std::strerror(err);
    if (err == ESRCH) return WEFT_ERR_PEER_FAILURE;
    if (err == EFAULT) return WEFT_ERR_INVALID_ARGUMENT;  // the sender's buffer is not mapped
    return WEFT_ERR_SYSTEM;
  }
  return WEFT_OK;
}

}  // namespace weft::backends::ucx_plugin
