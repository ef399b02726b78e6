#include "backends/ucx/transport/cma.hpp"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "backends/ucx/tuning_table.hpp"
#include "common/copy.hpp"

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

namespace {

weft_status_t CopyFailure(const char* call, int64_t pid, int err, std::string* why) {
  *why = std::string(call) + " with pid " + std::to_string(pid) + " failed: " + std::strerror(err);
  if (err == ESRCH) return WEFT_ERR_PEER_FAILURE;
  if (err == EFAULT) return WEFT_ERR_INVALID_ARGUMENT;  // the other buffer is not mapped
  return WEFT_ERR_SYSTEM;
}

weft_status_t ReadFailure(int64_t pid, int err, std::string* why) {
  return CopyFailure("process_vm_readv", pid, err, why);
}

// The iovecs of one cross-memory copy, collected piece by piece and handed to the kernel in
// batches of at most IOV_MAX (1024) on either side. Remote pieces are spans: one iovec for
// runs that continue one another (CopyRegion says why).
class IovecBatch {
 public:
  static constexpr int kBatch = kIovecsPerCall;

  IovecBatch(bool write, int64_t pid, std::string* why, const PeerGrants* grants, uint64_t token)
      : write_(write), pid_(pid), why_(why), grants_(grants), token_(token) {}

  // Ends the open remote span (covered up to `pos`).
  void CloseSpan() {
    if (open_ && pos_ > span_start_)
      r_[nr_++] = {reinterpret_cast<void*>(span_start_), static_cast<size_t>(pos_ - span_start_)};
    open_ = false;
  }
  // Starts a remote span at `at`, copying what is listed first when the remote side is full.
  weft_status_t OpenSpan(uint64_t at) {
    CloseSpan();
    if (nr_ >= kBatch - 1) {
      if (weft_status_t s = Call()) return s;
    }
    span_start_ = pos_ = at;
    open_ = true;
    return WEFT_OK;
  }
  // Whether remote bytes at `at` continue the open span within `max_gap` bytes.
  bool Continues(uint64_t at, uint64_t max_gap) const {
    return open_ && at >= pos_ && at - pos_ <= max_gap;
  }
  uint64_t pos() const { return pos_; }
  // Lists `len` local bytes at `p`, covering the open span further.
  weft_status_t AddLocal(char* p, uint64_t len) {
    if (nl_ == kBatch) {  // full: copy what is listed, go on with a span from here
      if (weft_status_t s = Call()) return s;
      span_start_ = pos_;
      open_ = true;
    }
    l_[nl_++] = {p, static_cast<size_t>(len)};
    want_ += len;
    pos_ += len;
    return WEFT_OK;
  }
  // Copies what is listed (one system call).
  weft_status_t Call() {
    CloseSpan();
    if (nl_ == 0) return WEFT_OK;
    weft_status_t revoked = WEFT_OK;
    if (grants_ != nullptr && !grants_->Claimed(token_, &revoked)) {
      *why_ = "the receiver took its buffer back mid-write (its receive ended with status " +
              std::to_string(revoked) + ")";
      return revoked;
    }
    const auto p = static_cast<pid_t>(pid_);
    const ssize_t got = write_ ? process_vm_writev(p, l_, nl_, r_, nr_, 0)
                               : process_vm_readv(p, l_, nl_, r_, nr_, 0);
    const bool ok = got == static_cast<ssize_t>(want_);
    nl_ = nr_ = 0;
    want_ = 0;
    // A short copy stops at the first piece it could not reach: report that piece's error.
    return ok ? WEFT_OK
              : CopyFailure(write_ ? "process_vm_writev" : "process_vm_readv", pid_,
                            got < 0 && errno != EINTR ? errno : EFAULT, why_);
  }

 private:
  const bool write_;
  const int64_t pid_;
  std::string* why_;
  const PeerGrants* grants_;
  const uint64_t token_;
  iovec l_[kBatch], r_[kBatch];
  int nl_ = 0, nr_ = 0;
  uint64_t want_ = 0;
  uint64_t span_start_ = 0, pos_ = 0;  // the open remote span, and how far local iovecs cover it
  bool open_ = false;
};

// Copies between a strided region in this process and one in process `pid` (equal sizes), in
// the regions' byte order: reads (remote -> local) or writes (local -> remote).
// A write looks at its loan (`grants`, `token`) before each system call.
weft_status_t CopyRegion(bool write, int64_t pid, uint64_t remote, const Layout& remote_layout,
                         char* local, const Layout& local_layout, std::string* why,
                         const PeerGrants* grants = nullptr, uint64_t token = 0) {
  // The kernel pins the pages and takes the other process's mm lock once per *remote* iovec,
  // about a third of a microsecond each, while local iovecs are cheap. So remote runs that
  // continue one another are one iovec, and a reader also reads runs separated by a small gap
  // as one span, the gap's bytes going to a scratch page: 1 KiB rows with 1 KiB gaps (S0 -> S1
  // on 2 ranks) read 2.5x faster that way than run by run. A writer never does: the gaps
  // are the other process's data.
  const uint64_t max_gap = write ? 0 : kReadSpanGap;
  char junk[kReadSpanGap];
  IovecBatch batch(write, pid, why, grants, token);
  RunCursor lc(local_layout);
  uint64_t lused = 0;  // bytes of the current local run already covered
  for (RunCursor rc(remote_layout); !rc.done(); rc.Next()) {
    const uint64_t at = remote + static_cast<uint64_t>(rc.offset());
    if (batch.Continues(at, max_gap)) {
      if (at > batch.pos()) {
        if (weft_status_t s = batch.AddLocal(junk, at - batch.pos())) return s;
      }
    } else if (weft_status_t s = batch.OpenSpan(at)) {
      return s;
    }
    for (uint64_t left = remote_layout.run; left > 0;) {  // split by the local runs
      const uint64_t len = std::min(left, local_layout.run - lused);
      if (weft_status_t s = batch.AddLocal(local + lc.offset() + lused, len)) return s;
      left -= len;
      if ((lused += len) == local_layout.run) {
        lused = 0;
        lc.Next();
      }
    }
  }
  return batch.Call();
}

// A contiguous remote region into short local runs: read in pieces into the bounce scratch
// (at the source's offset in its page, as ReadRemote does), each piece then unpacked run by
// run in user space. The kernel's copy pays per local iovec too (its setup per segment), and a
// user-space copy of a short run is cheaper (bench/ucx/short_runs.c, best of 200): 64 KiB into
// 256-byte runs 11.2 us as iovecs against 6.5 through the scratch, into 512-byte runs 8.0
// against 6.5; 1 KiB runs break even (256 KiB: 24.7, 24.6), and from 2 KiB on the iovecs win
// (1 MiB: 84 against 106 us).
weft_status_t ReadIntoShortRuns(int64_t pid, uint64_t remote, char* local,
                                const Layout& local_layout, std::string* why, Bounce bounce) {
  const uint64_t length = local_layout.Bytes();
  RunCursor cursor(local_layout);
  uint64_t used = 0;  // bytes of the cursor's run already written
  for (uint64_t done = 0; done < length;) {
    const uint64_t chunk = std::min<uint64_t>(length - done, kBounceBytes);
    char* into = bounce.data + ((remote + done) & 4095);
    iovec l{into, chunk};
    iovec r{reinterpret_cast<void*>(remote + done), chunk};
    const ssize_t n = process_vm_readv(static_cast<pid_t>(pid), &l, 1, &r, 1, 0);
    if (n <= 0) {
      const int err = n == 0 ? EFAULT : errno;
      if (err == EINTR) continue;
      return ReadFailure(pid, err, why);
    }
    for (uint64_t at = 0; at < static_cast<uint64_t>(n);) {
      const uint64_t len =
          std::min<uint64_t>(static_cast<uint64_t>(n) - at, local_layout.run - used);
      CopyBytes(local + cursor.offset() + used, into + at, len);
      at += len;
      if ((used += len) == local_layout.run) {
        used = 0;
        cursor.Next();
      }
    }
    done += static_cast<uint64_t>(n);
  }
  return WEFT_OK;
}

}  // namespace

weft_status_t ReadRemoteRegion(int64_t pid, uint64_t remote, const Layout& remote_layout,
                               char* local, const Layout& local_layout, std::string* why,
                               Bounce bounce) {
  if (remote_layout.ndim == 0 && local_layout.ndim == 0)
    return ReadRemote(pid, remote, local, local_layout.run, why, bounce);
  if (remote_layout.ndim == 0 && local_layout.run < kUnpackRunsBelow && bounce.data != nullptr)
    return ReadIntoShortRuns(pid, remote, local, local_layout, why, bounce);
  return CopyRegion(false, pid, remote, remote_layout, local, local_layout, why);
}

weft_status_t WriteRemoteRegion(int64_t pid, uint64_t remote, const Layout& remote_layout,
                                const char* local, const Layout& local_layout, std::string* why,
                                const PeerGrants& grants, uint64_t token) {
  // The kernel only reads the local iovecs of a write.
  return CopyRegion(true, pid, remote, remote_layout, const_cast<char*>(local), local_layout, why,
                    &grants, token);
}

weft_status_t ReadRemote(int64_t pid, uint64_t remote, void* local, uint64_t length,
                         std::string* why, Bounce bounce) {
  char* to = static_cast<char*>(local);
  const bool bounced = bounce.data != nullptr && length >= kBounceAtLeast &&
                       SlowCopySkew(to, reinterpret_cast<const void*>(remote));
  uint64_t done = 0;
  while (done < length) {
    // The kernel moves at most MAX_RW_COUNT (about 2 GiB) per call and may stop early.
    const uint64_t chunk = std::min<uint64_t>(length - done, bounced ? kBounceBytes : kReadPerCall);
    // Bounced: into the scratch at the source's offset in its page, then out with CopyBytes.
    char* into = bounced ? bounce.data + ((remote + done) & 4095) : to + done;
    iovec l{into, chunk};
    iovec r{reinterpret_cast<void*>(remote + done), chunk};
    const ssize_t n = process_vm_readv(static_cast<pid_t>(pid), &l, 1, &r, 1, 0);
    if (n > 0) {
      if (bounced) CopyBytes(to + done, into, static_cast<uint64_t>(n));
      done += static_cast<uint64_t>(n);
      continue;
    }
    const int err = n == 0 ? EFAULT : errno;
    if (err == EINTR) continue;
    return ReadFailure(pid, err, why);
  }
  return WEFT_OK;
}

}  // namespace weft::backends::ucx_plugin
