// NCCL through a table of function pointers (dynamic_library.hpp), resolved once from the
// library WEFT_NCCL_LIBRARY names (the fake NCCL of the tests is one such library). NCCL 2.18
// or later: ncclCommSplit and non-blocking communicators are what the plugin builds on.
// ncclAlltoAll (2.28) is optional: without it the plugin groups sends and receives.
#pragma once

#include <memory>
#include <string>

#include "backends/nccl/dynamic_library.hpp"
#include "backends/nccl/nccl_abi.hpp"
#include "device/cuda/cuda_abi.hpp"

namespace weft::backends::nccl_plugin {

struct NcclApi {
  using Comm = ncclComm_t;
  using Stream = cudaStream_t;
  ncclResult_t (*GetVersion)(int*) = nullptr;
  const char* (*GetErrorString)(ncclResult_t) = nullptr;
  const char* (*GetLastError)(Comm) = nullptr;
  ncclResult_t (*GetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*CommInitRankConfig)(Comm*, int, ncclUniqueId, int, weft_nccl_config_t*) = nullptr;
  ncclResult_t (*CommSplit)(Comm, int, int, Comm*, weft_nccl_config_t*) = nullptr;
  ncclResult_t (*CommGetAsyncError)(Comm, ncclResult_t*) = nullptr;
  ncclResult_t (*CommCount)(Comm, int*) = nullptr;
  ncclResult_t (*CommUserRank)(Comm, int*) = nullptr;
  ncclResult_t (*CommFinalize)(Comm) = nullptr;
  ncclResult_t (*CommDestroy)(Comm) = nullptr;
  ncclResult_t (*CommAbort)(Comm) = nullptr;
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, Comm,
                            Stream) = nullptr;
  ncclResult_t (*Reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, Comm,
                         Stream) = nullptr;
  ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, Comm,
                            Stream) = nullptr;
  ncclResult_t (*AllGather)(const void*, void*, size_t, ncclDataType_t, Comm, Stream) = nullptr;
  ncclResult_t (*ReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, Comm,
                                Stream) = nullptr;
  ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, Comm, Stream) = nullptr;
  ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, Comm, Stream) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;
  // Optional (null before NCCL 2.28).
  ncclResult_t (*AlltoAll)(const void*, void*, size_t, ncclDataType_t, Comm, Stream) = nullptr;

  int version = 0;  // ncclGetVersion's code, e.g. 22809

  // Opens NCCL, resolves every entry and checks the version; nullptr and `why` when it cannot.
  static std::unique_ptr<NcclApi> Load(std::string* why);
  // "ncclAllReduce: remote process exited or there was a network error (6): <last error>".
  std::string Describe(const char* call, ncclResult_t r, Comm comm = nullptr) const;

  std::unique_ptr<DynamicLibrary> library;
};

}  // namespace weft::backends::nccl_plugin
