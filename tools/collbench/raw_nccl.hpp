// The rows driven through NCCL's own calls (--raw nccl, with -d cuda): the library the NCCL
// backend wraps, through the same function table (backends/nccl/nccl_api.hpp,
// WEFT_NCCL_LIBRARY), on the same device buffers and stream, for Weft-over-NCCL against NCCL
// alone in the same run (nccl-tests' columns).
#pragma once

#include <weft/weft.h>

#include <memory>
#include <string>

#include "backends/nccl/nccl_api.hpp"
#include "tools/collbench/device_memory.hpp"
#include "tools/collbench/raw.hpp"

namespace weft::collbench {

class RawNccl : public Raw {
 public:
  // An NCCL communicator of the world: rank 0's unique id reaches the others through a Weft
  // broadcast. Collective over ctx; nullptr with *error on failure.
  static std::unique_ptr<RawNccl> Connect(weft_context_t* ctx, int32_t rank, int32_t nranks,
                                          DeviceMemory* device, std::string* error);
  ~RawNccl() override;

  // Device buffers; allreduce, allgather, reduce_scatter, alltoall, broadcast and sendrecv;
  // reductions of the dtypes NCCL has, not avg (NCCL's avg is not Weft's float64 one).
  const char* name() const override { return "nccl"; }
  bool Supports(const Case& c) const override;
  const char* Describe(Op op) const override;
  void Run(Case& c) override;
  void Barrier() override;

 private:
  RawNccl() = default;
  void Check(const char* call, ncclResult_t r) const;
  void Issue(Case& c);

  std::unique_ptr<backends::nccl_plugin::NcclApi> api_;
  ncclComm_t comm_ = nullptr;
  DeviceMemory* device_ = nullptr;
  int32_t rank_ = 0, nranks_ = 1;
  void* byte_ = nullptr;  // the barrier's all-reduce
};

}  // namespace weft::collbench
