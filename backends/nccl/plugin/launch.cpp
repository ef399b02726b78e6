#include "backends/nccl/plugin/launch.hpp"

#include "backends/nccl/plugin/completion.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::nccl_plugin {

Launch::Launch(Comm& c, const weft_bk_op_t& a, bool on_host)
    : comm(c),
      args(a),
      host(on_host),
      // Device buffers: the caller's stream, NULL being the legacy default stream, which the
      // caller's own work on them (the device operations' copies) is ordered on too.
      stream(on_host ? c.own_stream() : static_cast<cudaStream_t>(a.stream)),
      deadline(plugin_kit::Deadline::FromTimeoutMs(a.timeout_ms)),
      staging(c, on_host) {}

weft_status_t Start(Comm& c, const weft_bk_op_t* args, std::unique_ptr<Launch>* out) {
  State& s = c.state();
  if (weft_status_t f = s.Poll(); f != WEFT_OK) return f;
  if (weft_status_t st = s.UseDevice(); st != WEFT_OK) return st;
  c.Reap();
  if (weft_status_t st = c.batch().Flush(c); st != WEFT_OK) return st;
  const weft_bk_op_t a = plugin_kit::ReadOpArgs(args, s.default_timeout_ms());
  const DLDeviceType type = a.device.device_type;
  if (type != kDLCPU && type != kDLCUDAHost && type != kDLCUDA)
    return s.Fail(WEFT_ERR_UNSUPPORTED,
                  "device type " + std::to_string(type) + " is neither host memory nor CUDA");
  *out = std::make_unique<Launch>(c, a, plugin_kit::IsHostMemory(a.device));
  return WEFT_OK;
}

namespace {

// An event after a device-buffer op the host never waits for, held against the op's deadline
// by the watchdog (device_deadlines.hpp); none without a deadline or with
// WEFT_NCCL_DEVICE_TIMEOUTS=0.
weft_status_t WatchDeadline(Launch& l) {
  State& s = l.comm.state();
  if (l.deadline.none() || !s.device_timeouts()) return WEFT_OK;
  cudaEvent_t e = l.comm.AcquireEvent();
  if (!e) return WEFT_ERR_BACKEND;
  if (const cudaError_t r = s.cuda().EventRecord(e, l.stream); r != cuda::kSuccess) {
    s.cuda().GetLastError();
    l.comm.ReleaseEvent(e);
    return s.Fail(WEFT_ERR_BACKEND, s.cuda().Describe("cudaEventRecord", r));
  }
  l.comm.Watch(e, l.deadline, l.args.timeout_ms);
  return WEFT_OK;
}

}  // namespace

weft_status_t Seal(Launch& l, weft_status_t st, std::shared_ptr<Completion>* out) {
  State& s = l.comm.state();
  if (st == WEFT_OK) st = l.staging.End(l.stream);
  std::function<weft_status_t()> deliver = l.staging.Deliver();  // before the leases go
  std::vector<Lease> scratch = l.staging.TakeLeases();
  // Device buffers with nothing to keep: the op is complete once enqueued (SPEC §6.2) and no
  // scratch waits for the stream; an event goes after it only for its deadline.
  if (!l.host && scratch.empty()) return st == WEFT_OK ? WatchDeadline(l) : st;
  // Even a failed op keeps its scratch until the stream passes what was enqueued, but it does
  // no host work: its call has returned, and its outputs are not the caller's any more.
  cudaEvent_t e = l.comm.AcquireEvent();
  if (!e) return WEFT_ERR_BACKEND;
  auto done = std::make_shared<Completion>(l.comm, e, l.deadline, l.args.timeout_ms);
  for (Lease& lease : scratch) done->Keep(std::move(lease));
  if (st == WEFT_OK && deliver) done->Then(std::move(deliver));
  const cudaError_t r = s.cuda().EventRecord(e, l.stream);
  if (r != cuda::kSuccess) {
    s.cuda().GetLastError();
    const weft_status_t failed = s.Fail(WEFT_ERR_BACKEND, s.cuda().Describe("cudaEventRecord", r));
    return st == WEFT_OK ? failed : st;
  }
  l.comm.Track(done);
  *out = std::move(done);
  return st;
}

weft_status_t Run(Launch& l, weft_bk_request_t** req, const std::function<weft_status_t()>& issue) {
  weft_status_t st = l.staging.Begin(l.stream);
  if (st == WEFT_OK) st = issue();
  std::shared_ptr<Completion> done;
  st = Seal(l, st, &done);
  if (st != WEFT_OK) return st;
  // Device buffers: complete once enqueued (SPEC §6.2).
  auto request = std::make_shared<Request>(l.comm, l.deadline, !l.host);
  request->Issued(std::move(done));
  if (req) {
    *req = new weft_bk_request{std::move(request)};  // freed by request_free (C ABI ownership)
    return WEFT_OK;
  }
  return request->Wait(-1);
}

weft_status_t Bytes(const Launch& l, const void* p, uint64_t count, DLDataType t, const char* what,
                    uint64_t* bytes) {
  uint64_t item = 0;
  if (!plugin_kit::ItemBytes(t, &item))
    return l.Fail(
        WEFT_ERR_INVALID_ARGUMENT,
        std::string(what) + ": dtype of " + std::to_string(t.bits) + " bits is not whole bytes");
  switch (plugin_kit::CheckBuffer(p, count, item, bytes)) {
    case plugin_kit::BufferCheck::kOverflow:
      return l.Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + ": " + std::to_string(count) +
                                                   " elements overflow 64 bits of bytes");
    case plugin_kit::BufferCheck::kNull:
      return l.Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
    default:
      return WEFT_OK;
  }
}

}  // namespace weft::backends::nccl_plugin
