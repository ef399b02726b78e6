#include "backends/nccl/cuda_api.hpp"

#include <vector>

#include "backends/nccl/params.hpp"

namespace weft::backends::nccl_plugin {
namespace {

std::vector<std::string> Candidates() {
  const std::string chosen = param::Read(kParams[1]).value.text;  // WEFT_CUDART_LIBRARY
  if (!chosen.empty()) return {chosen};
  return {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
}

}  // namespace

std::unique_ptr<CudaApi> CudaApi::Load(std::string* why) {
  auto api = std::make_unique<CudaApi>();
  api->library = DynamicLibrary::Open(Candidates(), why);
  if (!api->library) {
    *why = "the CUDA runtime cannot be opened (WEFT_CUDART_LIBRARY): " + *why;
    return nullptr;
  }
  const DynamicLibrary& l = *api->library;
  std::string missing;
  l.Resolve("cudaGetDeviceCount", &api->GetDeviceCount, &missing);
  l.Resolve("cudaSetDevice", &api->SetDevice, &missing);
  l.Resolve("cudaGetDevice", &api->GetDevice, &missing);
  l.Resolve("cudaRuntimeGetVersion", &api->RuntimeGetVersion, &missing);
  l.Resolve("cudaGetErrorString", &api->GetErrorString, &missing);
  l.Resolve("cudaGetLastError", &api->GetLastError, &missing);
  l.Resolve("cudaMalloc", &api->Malloc, &missing);
  l.Resolve("cudaFree", &api->Free, &missing);
  l.Resolve("cudaMallocHost", &api->MallocHost, &missing);
  l.Resolve("cudaFreeHost", &api->FreeHost, &missing);
  l.Resolve("cudaMallocManaged", &api->MallocManaged, &missing);
  l.Resolve("cudaPointerGetAttributes", &api->PointerGetAttributes, &missing);
  l.Resolve("cudaMemcpyAsync", &api->MemcpyAsync, &missing);
  l.Resolve("cudaMemcpy2DAsync", &api->Memcpy2DAsync, &missing);
  l.Resolve("cudaMemsetAsync", &api->MemsetAsync, &missing);
  l.Resolve("cudaStreamCreateWithFlags", &api->StreamCreateWithFlags, &missing);
  l.Resolve("cudaStreamDestroy", &api->StreamDestroy, &missing);
  l.Resolve("cudaStreamSynchronize", &api->StreamSynchronize, &missing);
  l.Resolve("cudaDeviceSynchronize", &api->DeviceSynchronize, &missing);
  l.Resolve("cudaStreamQuery", &api->StreamQuery, &missing);
  l.Resolve("cudaStreamWaitEvent", &api->StreamWaitEvent, &missing);
  l.Resolve("cudaEventCreateWithFlags", &api->EventCreateWithFlags, &missing);
  l.Resolve("cudaEventDestroy", &api->EventDestroy, &missing);
  l.Resolve("cudaEventRecord", &api->EventRecord, &missing);
  l.Resolve("cudaEventQuery", &api->EventQuery, &missing);
  l.Resolve("cudaEventSynchronize", &api->EventSynchronize, &missing);
  l.Resolve("cudaLaunchHostFunc", &api->LaunchHostFunc, &missing);
  if (!missing.empty()) {
    *why = l.name() + " is not a CUDA runtime this plugin can use: it lacks " + missing;
    return nullptr;
  }
  return api;
}

std::string CudaApi::Describe(const char* call, cudaError_t e) const {
  return std::string(call) + ": " + GetErrorString(e) + " (" + std::to_string(e) + ")";
}

bool CudaApi::DeviceVisible(std::string* why) const {
  int count = 0;
  const cudaError_t e = GetDeviceCount(&count);
  GetLastError();  // the runtime keeps the failure sticky for the next call otherwise
  if (e == cuda::kSuccess && count > 0) return true;
  *why = "no CUDA device is visible to this process (" +
         (e == cuda::kSuccess ? std::string("cudaGetDeviceCount: 0 devices")
                              : Describe("cudaGetDeviceCount", e)) +
         ")";
  return false;
}

}  // namespace weft::backends::nccl_plugin
