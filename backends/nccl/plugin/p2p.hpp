// Point-to-point on NCCL. NCCL matches a pair's sends and receives in the order they were
// posted and has no tags, and a send or receive issued alone blocks its stream until the peer
// issues the other side: so posted messages are not issued one by one. They collect here and
// go out as one NCCL group when the host first tests or waits for any of them, or before the
// communicator's next collective; the host posts every message of a step before it waits
// (composed operations, the executor's exchanges), so a ring's receive-then-send meets its
// peers' in one group.
//
// NCCL has no tags: a pair's messages match in posting order whatever their tags, as on
// torch's NCCL process group. Host algorithms post a pair's messages in the same order on both
// sides; a program whose two sides post one pair's messages in different tag orders gets them
// crossed (README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

#include "common/plugin_kit/deadline.hpp"
#include "device/cuda/cuda_abi.hpp"

namespace weft::backends::nccl_plugin {

class Comm;
class Request;

struct Message {
  bool send = true;
  void* buf = nullptr;  // the caller's memory
  uint64_t bytes = 0;
  int32_t peer = 0;
  bool host = true;               // buf is host memory (staged through device scratch)
  cudaStream_t stream = nullptr;  // the caller's, for device memory
  plugin_kit::Deadline deadline;
  std::shared_ptr<Request> request;
};

class P2pBatch {
 public:
  bool empty() const { return pending_.empty(); }
  // Queues `m` (its request is marked queued until the batch goes out).
  weft_status_t Post(Message m);
  // Issues everything queued, in posting order.
  weft_status_t Flush(Comm& c);

 private:
  weft_status_t Issue(Comm& c, std::vector<Message>& group);

  std::mutex mu_;  // the host may test a request from another thread than the one posting
  std::vector<Message> pending_;
};

}  // namespace weft::backends::nccl_plugin
