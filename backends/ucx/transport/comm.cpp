#include "backends/ucx/transport/comm.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>

#include "backends/ucx/coll/board.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// comm_create's timeout covers all of its store calls: each gets what is left of it, so that
// waits one after the other do not add up to several timeouts (SPEC §10).
// The one deadline of a comm_create: every store call gets what is left of it.
class Budget {
 public:
  explicit Budget(int64_t timeout_ms) : until_(DeadlineFromTimeoutMs(timeout_ms)) {}
  // Milliseconds left (never early), 0 once passed; -1: no deadline.
  int64_t Left() const { return RemainingMs(until_); }

 private:
  Clock::time_point until_;
};

// Reads a store value of any size (worker addresses are a few hundred bytes).
weft_status_t StoreGet(const weft_bk_host_api_t* h, const std::string& key, const Budget& b,
                       std::vector<char>* value) {
  value->resize(1024);
  size_t len = 0;
  weft_status_t s =
      h->store_get(h->host_data, key.c_str(), value->data(), value->size(), &len, b.Left());
  if (s == WEFT_ERR_INVALID_ARGUMENT && len > value->size()) {
    value->resize(len);
    s = h->store_get(h->host_data, key.c_str(), value->data(), value->size(), &len, b.Left());
  }
  if (s == WEFT_OK) value->resize(len);
  return s;
}

// Member 0 draws the id from a counter every communicator of the context shares; the others
// read it under the group's prefix. Ids are 1..kMaxCommId (0 is the group of one, which never
// sends to anyone else).
weft_status_t AgreeOnId(State& st, const std::string& prefix, int32_t my_index, const Budget& b,
                        uint16_t* id) {
  const weft_bk_host_api_t* h = st.host();
  const std::string key = prefix + "ucx/id";
  if (my_index == 0) {
    int64_t next = 0;
    if (weft_status_t s = h->store_add(h->host_data, "ucx/next-comm-id", 1, &next, b.Left()))
      return s;
    *id = static_cast<uint16_t>((next - 1) % kMaxCommId + 1);
    const std::string text = std::to_string(*id);
    return h->store_set(h->host_data, key.c_str(), text.data(), text.size(), b.Left());
  }
  std::vector<char> value;
  if (weft_status_t s = StoreGet(h, key, b, &value)) return s;
  value.push_back('\0');
  const long v = std::strtol(value.data(), nullptr, 10);
  if (v < 1 || v > static_cast<long>(kMaxCommId))
    return st.Fail(WEFT_ERR_BACKEND, "comm_create: bad id under " + key);
  *id = static_cast<uint16_t>(v);
  return WEFT_OK;
}

weft_status_t Validate(State& st, const int32_t* ranks, int32_t n, int32_t my_index) {
  if (ranks == nullptr || n < 1 || n > kMaxMembers)
    return st.Fail(WEFT_ERR_INVALID_ARGUMENT,
                   "comm_create: a group has 1.." + std::to_string(kMaxMembers) + " members");
  if (my_index < 0 || my_index >= n || ranks[my_index] != st.rank())
    return st.Fail(WEFT_ERR_INVALID_ARGUMENT, "comm_create: my_index does not name this rank");
  std::set<int32_t> seen;
  for (int32_t i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= st.world_size() || !seen.insert(ranks[i]).second)
      return st.Fail(WEFT_ERR_INVALID_ARGUMENT, "comm_create: member " + std::to_string(i) +
                                                    " is rank " + std::to_string(ranks[i]) +
                                                    ", outside the world or repeated");
  }
  return WEFT_OK;
}

// Whether the members use boards for their small collectives (board.hpp), decided alike by
// all: each publishes the area it took in its board, or -1 when it cannot take part (a member
// on another host, no board, one it cannot map); the board is used when nobody said -1. Only
// groups small enough for boards publish at all (every member knows the size).
weft_status_t AgreeOnBoard(State& st, Comm& c, const std::string& prefix, const Budget& b) {
  const int32_t n = c.size();
  if (n < 2 || n > kBoardMaxMembers) return WEFT_OK;
  const weft_bk_host_api_t* h = st.host();
  std::vector<const BoardArea*> areas(n, nullptr);
  int32_t area = -1;
  {
    std::lock_guard<std::mutex> lock(st.mu());
    bool able = st.board().open();
    for (int32_t i = 0; i < n && able; ++i)
      able = i == c.index || st.peer(c.ranks[i]).board != nullptr;
    if (able) area = st.board().TakeArea();
  }
  const std::string text = std::to_string(area);
  const std::string mine = prefix + "ucx/board/" + std::to_string(c.index);
  if (weft_status_t s =
          h->store_set(h->host_data, mine.c_str(), text.data(), text.size(), b.Left()))
    return s;
  if (area < 0) return WEFT_OK;
  for (int32_t i = 0; i < n; ++i) {
    if (i == c.index) continue;
    std::vector<char> value;
    // On a failure here the area stays taken: members that got every answer may use it.
    if (weft_status_t s = StoreGet(h, prefix + "ucx/board/" + std::to_string(i), b, &value))
      return s;
    value.push_back('\0');
    const long theirs = std::strtol(value.data(), nullptr, 10);
    std::lock_guard<std::mutex> lock(st.mu());
    if (theirs < 0 || theirs >= static_cast<long>(kBoardAreas)) {
      // Nobody uses this area (nobody uses boards here), so the next communicator may.
      st.board().ReturnArea(area);
      return WEFT_OK;
    }
    areas[i] = st.peer(c.ranks[i]).board->area(static_cast<int32_t>(theirs));
  }
  {
    std::lock_guard<std::mutex> lock(st.mu());
    BoardArea* own = st.board().area(area);
    areas[c.index] = own;
    c.board = std::make_shared<BoardQueue>(st, c, std::move(areas), own);
  }
  const std::string line = "ucx: rank " + std::to_string(st.rank()) + ": communicator " +
                           std::to_string(c.id) + " of " + std::to_string(n) +
                           " members runs its small collectives on shared-memory boards";
  h->log(h->host_data, WEFT_LOG_DEBUG, line.c_str());
  return WEFT_OK;
}

}  // namespace

weft_status_t CreateComm(State& st, const int32_t* ranks, int32_t n, int32_t my_index,
                         const char* prefix_c, int64_t timeout_ms, Comm** out) {
  if (weft_status_t s = Validate(st, ranks, n, my_index)) return s;
  {
    std::lock_guard<std::mutex> lock(st.mu());
    std::string why;
    if (weft_status_t a = st.Aborted(&why)) return st.Fail(a, "comm_create: " + why);
  }
  auto comm = std::unique_ptr<weft_bk_comm>(new (std::nothrow) weft_bk_comm());
  if (!comm) return WEFT_ERR_OUT_OF_MEMORY;
  comm->state = &st;
  comm->index = my_index;
  comm->ranks.assign(ranks, ranks + n);

  const weft_bk_host_api_t* h = st.host();
  const std::string prefix = prefix_c != nullptr ? prefix_c : "";
  const Budget b(timeout_ms);
  if (n > 1) {
    if (weft_status_t s = AgreeOnId(st, prefix, my_index, b, &comm->id)) return s;
    // Every member publishes its worker address; endpoints are per world rank and shared by
    // every communicator that has the peer, so only the missing ones are read.
    const std::string mine = prefix + "ucx/addr/" + std::to_string(my_index);
    if (weft_status_t s = h->store_set(h->host_data, mine.c_str(), st.address().data(),
                                       st.address().size(), b.Left()))
      return s;
  }
  for (int32_t i = 0; i < n; ++i) {
    {
      std::lock_guard<std::mutex> lock(st.mu());
      if (st.Connected(ranks[i])) continue;
      if (i == my_index) {  // messages to oneself go through UCX's loopback transport
        if (weft_status_t s = st.Connect(ranks[i], st.address())) return s;
        continue;
      }
    }
    std::vector<char> address;
    const std::string key = prefix + "ucx/addr/" + std::to_string(i);
    if (weft_status_t s = StoreGet(h, key, b, &address)) return s;
    std::lock_guard<std::mutex> lock(st.mu());
    if (weft_status_t s = st.Connect(ranks[i], address)) return s;
  }
  if (weft_status_t s = AgreeOnBoard(st, *comm, prefix, b)) return s;
  *out = comm.release();
  return WEFT_OK;
}

}  // namespace weft::backends::ucx_plugin
