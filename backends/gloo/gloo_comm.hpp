// A communicator: the members of one group, fully connected by a Gloo rendezvous context
// (none for a group of one), plus the failure state every op of the group consults.
//
// Failure model. Gloo's TCP pairs fail one by one (a peer closed, a wait timed out); an op
// sees one failed pair. The first op that fails closes every connection of the communicator
// ("poisons" it), so that the other members, blocked on other pairs, fail within moments
// instead of at their deadline, and records the failure: later ops return it at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "backends/gloo/errors.hpp"
#include "backends/gloo/gloo_guard.hpp"
#include "backends/gloo/loopback.hpp"
#include "backends/gloo/plugin_state.hpp"

namespace weft::backends::gloo_plugin {

class StoreAdapter;

class Comm {
 public:
  // Collective over the group: every member calls it with the same ranks and prefix.
  static weft_status_t Create(const std::shared_ptr<State>& state, const int32_t* world_ranks,
                              int32_t nranks, int32_t my_index, const char* store_prefix,
                              int64_t timeout_ms, std::shared_ptr<Comm>* out);

  Comm(std::shared_ptr<State> state, std::vector<int32_t> ranks, int32_t index);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  int32_t size() const { return static_cast<int32_t>(ranks_.size()); }
  int32_t index() const { return index_; }
  int32_t world_rank(int32_t index) const { return ranks_[index]; }
  const Host& host() const { return state_->host(); }
  Waiters& waiters() const { return state_->waiters(); }
  // The context's default deadline, for ops that come without weft_bk_op_t.
  int64_t default_timeout_ms() const { return state_->args().timeout_ms; }
  // Null for a group of one.
  const std::shared_ptr<MeshContext>& mesh() const { return mesh_; }
  Loopback& loopback() { return loopback_; }

  // The tag Gloo builds the next collective's slots from. Counted here rather than taken
  // from weft_bk_op_t.seq, which point-to-point ops advance unevenly across members; every
  // member runs the same collectives in the same order, so the counts agree. (Gloo matches
  // in order per slot anyway; distinct tags keep a stray message from a mismatched call
  // sequence out of the next collective.)
  uint32_t NextCollectiveTag() { return collective_tag_++; }

  // The number of the next framed message (framed_p2p.hpp) to (recv = false) or from `peer`
  // on `tag`: both ends count a (pair, tag, direction) alike, in posting order.
  uint64_t NextFramedNumber(bool recv, int32_t peer, int64_t tag) {
    return framed_numbers_[{recv, peer, tag}]++;
  }

  // WEFT_OK, or the abort or earlier failure that makes the communicator unusable (reported
  // through host->set_error as "<op>: ...").
  weft_status_t CheckUsable(const std::string& op) const;

  // The outcome of `op` failing with `failure` (from ClassifyCurrentException): names the
  // peer of a failed connection, poisons the communicator, records the failure, reports it.
  Failure FailWith(const std::string& op, Failure failure);

  // Closes every connection: blocked ops return, they and later ops fail with (status,
  // message). Thread-safe; the first call sets the status later ops report.
  void Poison(weft_status_t status, const std::string& message);

  // comm_destroy(): ends the waits of operations still pending (requests freed while
  // pending); the connections close gracefully when the context goes.
  void Close();

 private:
  weft_status_t Connect(const char* store_prefix, int64_t timeout_ms);
  // The abort or earlier failure that makes `op` fail at once; status WEFT_OK if none.
  Failure Unusable(const std::string& op) const;
  // "connection to rank 5 (member 2) failed: <gloo text>", naming the member whose address
  // appears in Gloo's text; *failed_rank = -1 when none does. Gloo writes the address it
  // connected to, which the rendezvous published; a connection this member accepted shows
  // the peer's ephemeral port instead, which names nobody.
  std::string DescribePeerFailure(const std::string& gloo_text, int32_t* failed_rank) const;
  void LearnPeerAddresses(const StoreAdapter& store);

  std::shared_ptr<State> state_;
  std::vector<int32_t> ranks_;
  int32_t index_;
  std::shared_ptr<MeshContext> mesh_;
  Loopback loopback_;
  bool registered_ = false;
  uint32_t collective_tag_ = 0;  // ops of a communicator come from one thread at a time
  std::map<std::tuple<bool, int32_t, int64_t>, uint64_t> framed_numbers_;  // likewise
  std::vector<std::string> peer_texts_;  // "[127.0.0.1]:41235" per member, "" if unknown

  mutable std::mutex mu_;  // guards the fields below
  weft_status_t failed_ = WEFT_OK;
  std::string failed_message_;
};

}  // namespace weft::backends::gloo_plugin
