// NCCL groups on one communicator: a body of NCCL calls between ncclGroupStart and
// ncclGroupEnd, issued under the communicator's lock; and an exchange, a set of sends and
// receives issued as one group (NCCL starts them together, so none waits on another), with a
// member's messages to itself copied on the stream instead.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/nccl/plugin/launch.hpp"

namespace weft::backends::nccl_plugin {

template <typename Body>
weft_status_t Group(Launch& l, const char* what, Body&& body) {
  return l.comm.Issue(what, [&](ncclComm_t h) {
    const NcclApi& api = l.nccl();
    if (ncclResult_t r = api.GroupStart(); r != nccl::kSuccess) return r;
    const ncclResult_t r = body(h);
    const ncclResult_t end = api.GroupEnd();  // always: the group must close
    return r != nccl::kSuccess ? r : end;
  });
}

struct Transfer {
  bool send;
  void* buf;  // the caller's address (staged through l)
  uint64_t bytes;
  int32_t peer;
};

// Issues `moves` (caller addresses) on l's stream: those between members as one NCCL group in
// order, the k-th send to oneself copied into the k-th receive from oneself.
weft_status_t Exchange(Launch& l, const char* what, const std::vector<Transfer>& moves);

}  // namespace weft::backends::nccl_plugin
