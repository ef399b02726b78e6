#include "backends/ucx/board.hpp"

#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

constexpr size_t kHeaderBytes = 64;
constexpr size_t kBoardFileBytes = kHeaderBytes + size_t{kBoardAreas} * sizeof(BoardArea);

std::atomic_ref<uint32_t> SleepingWord(const char* base) {
  return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(const_cast<char*>(base)));
}

}  // namespace

bool ProcessAlive(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return !stat.empty();
  const char state = stat[close + 2];
  return state != 'Z' && state != 'X';
}

Board::~Board() {
  if (base_ != nullptr) munmap(base_, kBoardFileBytes);
  if (fd_ >= 0) close(fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool Board::Open() {
  // The file is sparse: only the areas communicators use get pages.
  fd_ = static_cast<int>(syscall(SYS_memfd_create, "weft-ucx-board", MFD_CLOEXEC));
  if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(kBoardFileBytes)) != 0) return false;
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return false;
  void* p = mmap(nullptr, kBoardFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) return false;
  base_ = static_cast<char*>(p);
  return true;
}

BoardIdentity Board::Identity() const {
  BoardIdentity id;
  if (!open()) return id;
  id.fd = fd_;
  id.wake_fd = wake_fd_;
  id.areas = kBoardAreas;
  return id;
}

void Board::DrainWake() const {
  uint64_t count = 0;
  if (wake_fd_ >= 0) (void)!read(wake_fd_, &count, sizeof(count));
}

int32_t Board::TakeArea() {
  if (!open() || next_area_ >= kBoardAreas) return -1;
  return static_cast<int32_t>(next_area_++);
}

void Board::ReturnArea(int32_t i) {
  if (i >= 0 && static_cast<uint32_t>(i) + 1 == next_area_) --next_area_;
}

BoardArea* Board::area(int32_t i) const {
  return reinterpret_cast<BoardArea*>(base_ + kHeaderBytes) + i;
}

void Board::Publish(BoardArea* a, uint64_t word, const void* data, uint64_t bytes) {
  BoardSlot& s = a->slot[word & 1];
  std::atomic_ref<uint64_t>(s.seq).store(kSlotBeingWritten, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);  // the mark before the data
  if (bytes != 0) CopyBytes(s.data, data, bytes);
  // Release only: the fence that orders it before the look at the readers' `sleeping` words
  // comes later (board.hpp).
  std::atomic_ref<uint64_t>(s.seq).store(word, std::memory_order_release);
}

void Board::SetSleeping(bool sleeping) const {
  if (base_ == nullptr) return;
  if (sleeping)
    SleepingWord(base_).fetch_add(1, std::memory_order_seq_cst);
  else
    SleepingWord(base_).fetch_sub(1, std::memory_order_seq_cst);
}

PeerBoard::~PeerBoard() {
  if (base_ != nullptr) munmap(const_cast<char*>(base_), kBoardFileBytes);
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool PeerBoard::Open(pid_t pid, const BoardIdentity& id) {
  if (id.areas != kBoardAreas || id.fd < 0 || id.wake_fd < 0) return false;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return false;
  const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, id.fd, 0));
  const int wake = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, id.wake_fd, 0));
  close(pidfd);
  void* p = fd >= 0 ? mmap(nullptr, kBoardFileBytes, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (fd >= 0) close(fd);  // the mapping keeps the memory
  if (p == MAP_FAILED || wake < 0) {
    if (p != MAP_FAILED) munmap(p, kBoardFileBytes);
    if (wake >= 0) close(wake);
    return false;
  }
  base_ = static_cast<const char*>(p);
  wake_fd_ = wake;
  return true;
}

const BoardArea* PeerBoard::area(int32_t i) const {
  return reinterpret_cast<const BoardArea*>(base_ + kHeaderBytes) + i;
}

void PeerBoard::WakeIfSleeping() const {
  if (SleepingWord(base_).load(std::memory_order_relaxed) == 0) return;
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
}

}  // namespace weft::backends::ucx_plugin
