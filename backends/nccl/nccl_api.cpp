#include "backends/nccl/nccl_api.hpp"

#include <vector>

#include "backends/nccl/params.hpp"

namespace weft::backends::nccl_plugin {
namespace {

constexpr int kMinVersion = nccl::Version(2, 18, 0);

std::vector<std::string> Candidates() {
  const std::string chosen = param::Read(kParams[0]).value.text;  // WEFT_NCCL_LIBRARY
  if (!chosen.empty()) return {chosen};
  return {"libnccl.so.2"};
}

std::string VersionText(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

}  // namespace

std::unique_ptr<NcclApi> NcclApi::Load(std::string* why) {
  auto api = std::make_unique<NcclApi>();
  api->library = DynamicLibrary::Open(Candidates(), why);
  if (!api->library) {
    *why = "NCCL cannot be opened (WEFT_NCCL_LIBRARY): " + *why;
    return nullptr;
  }
  const DynamicLibrary& l = *api->library;
  std::string missing;
  l.Resolve("ncclGetVersion", &api->GetVersion, &missing);
  l.Resolve("ncclGetErrorString", &api->GetErrorString, &missing);
  l.Resolve("ncclGetLastError", &api->GetLastError, &missing);
  l.Resolve("ncclGetUniqueId", &api->GetUniqueId, &missing);
  l.Resolve("ncclCommInitRankConfig", &api->CommInitRankConfig, &missing);
  l.Resolve("ncclCommSplit", &api->CommSplit, &missing);
  l.Resolve("ncclCommGetAsyncError", &api->CommGetAsyncError, &missing);
  l.Resolve("ncclCommCount", &api->CommCount, &missing);
  l.Resolve("ncclCommUserRank", &api->CommUserRank, &missing);
  l.Resolve("ncclCommFinalize", &api->CommFinalize, &missing);
  l.Resolve("ncclCommDestroy", &api->CommDestroy, &missing);
  l.Resolve("ncclCommAbort", &api->CommAbort, &missing);
  l.Resolve("ncclAllReduce", &api->AllReduce, &missing);
  l.Resolve("ncclReduce", &api->Reduce, &missing);
  l.Resolve("ncclBroadcast", &api->Broadcast, &missing);
  l.Resolve("ncclAllGather", &api->AllGather, &missing);
  l.Resolve("ncclReduceScatter", &api->ReduceScatter, &missing);
  l.Resolve("ncclSend", &api->Send, &missing);
  l.Resolve("ncclRecv", &api->Recv, &missing);
  l.Resolve("ncclGroupStart", &api->GroupStart, &missing);
  l.Resolve("ncclGroupEnd", &api->GroupEnd, &missing);
  if (!missing.empty()) {
    *why = l.name() + " is not an NCCL this plugin can use: it lacks " + missing;
    return nullptr;
  }
  std::string optional;
  l.Resolve("ncclAlltoAll", &api->AlltoAll, &optional);
  if (api->GetVersion(&api->version) != nccl::kSuccess || api->version < kMinVersion) {
    *why = l.name() + " is NCCL " + VersionText(api->version) + "; the plugin needs " +
           VersionText(kMinVersion) + " or later";
    return nullptr;
  }
  return api;
}

std::string NcclApi::Describe(const char* call, ncclResult_t r, Comm comm) const {
  std::string out = std::string(call) + ": " + GetErrorString(r) + " (" + std::to_string(r) + ")";
  const char* last = GetLastError(comm);
  if (last && *last) out += ": " + std::string(last);
  return out;
}

}  // namespace weft::backends::nccl_plugin
