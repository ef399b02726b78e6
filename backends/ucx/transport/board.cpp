#include "backends/ucx/transport/board.hpp"

#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

constexpr size_t kHeaderBytes = 64;
constexpr size_t kBoardFileBytes = kHeaderBytes + size_t{kBoardAreas} * sizeof(BoardArea);

std::atomic_ref<uint32_t> SleepingWord(const char* base) {
  return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(const_cast<char*>(base)));
}

}  // namespace

bool Board::Open() {
  // Sparse: only the areas communicators use get pages.
  return file_.Create("weft-ucx-board", kBoardFileBytes);
}

BoardIdentity Board::Identity() const {
  BoardIdentity id;
  if (!open()) return id;
  id.fd = file_.fd();
  id.wake_fd = file_.wake_fd();
  id.areas = kBoardAreas;
  return id;
}

int32_t Board::TakeArea() {
  if (!open() || next_area_ >= kBoardAreas) return -1;
  return static_cast<int32_t>(next_area_++);
}

void Board::ReturnArea(int32_t i) {
  if (i >= 0 && static_cast<uint32_t>(i) + 1 == next_area_) --next_area_;
}

BoardArea* Board::area(int32_t i) const {
  return reinterpret_cast<BoardArea*>(file_.base() + kHeaderBytes) + i;
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
  if (!open()) return;
  if (sleeping)
    SleepingWord(file_.base()).fetch_add(1, std::memory_order_seq_cst);
  else
    SleepingWord(file_.base()).fetch_sub(1, std::memory_order_seq_cst);
}

bool PeerBoard::Open(pid_t pid, const BoardIdentity& id) {
  return id.areas == kBoardAreas && file_.Open(pid, id.fd, id.wake_fd, kBoardFileBytes, false);
}

const BoardArea* PeerBoard::area(int32_t i) const {
  return reinterpret_cast<const BoardArea*>(file_.base() + kHeaderBytes) + i;
}

void PeerBoard::WakeIfSleeping() const {
  if (SleepingWord(file_.base()).load(std::memory_order_relaxed) != 0) file_.Wake();
}

}  // namespace weft::backends::ucx_plugin
