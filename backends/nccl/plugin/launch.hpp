// What every operation of the plugin does around its NCCL calls: the context's failure first,
// the queued point-to-point messages issued (NCCL runs a communicator's work in issue order,
// and the host posted them before this op), the stream chosen (the caller's for device
// buffers, the communicator's own for host buffers), host buffers staged, and afterwards the
// event recorded, the completion kept, and a request returned or, for a blocking call on host
// buffers, waited for.
#pragma once

#include <functional>

#include "backends/nccl/plugin/comm.hpp"
#include "backends/nccl/plugin/staging.hpp"
#include "common/plugin_kit/deadline.hpp"

namespace weft::backends::nccl_plugin {

class Completion;

struct Launch {
  Launch(Comm& c, const weft_bk_op_t& a, bool on_host);

  Comm& comm;
  weft_bk_op_t args;
  bool host;  // the buffers are host memory (staged)
  cudaStream_t stream;
  plugin_kit::Deadline deadline;
  Staging staging;

  const NcclApi& nccl() const { return comm.state().nccl(); }
  void* Dev(const void* p) const { return staging.Dev(p); }
  weft_status_t Fail(weft_status_t s, const std::string& m) const {
    return comm.state().Fail(s, m);
  }
};

// Starts an operation on `c`, or says why not (the context failed, queued messages could not
// be issued).
weft_status_t Start(Comm& c, const weft_bk_op_t* args, std::unique_ptr<Launch>* out);

// Runs `issue` (the NCCL calls, on the staged addresses) between the copies in and out, then
// records the completion. A host-buffer op without `req` waits.
weft_status_t Run(Launch& l, weft_bk_request_t** req, const std::function<weft_status_t()>& issue);

// Ends what `issue` enqueued on l's stream (status `st`): copies out, records the event and
// keeps the completion with the scratch and the delivery of the outputs. *out stays null when
// nothing could be kept, and for device buffers with nothing to keep (complete once enqueued).
weft_status_t Seal(Launch& l, weft_status_t st, std::shared_ptr<Completion>* out);

// The bytes of `count` elements of `t` in *bytes, or an error naming `what`.
weft_status_t Bytes(const Launch& l, const void* p, uint64_t count, DLDataType t, const char* what,
                    uint64_t* bytes);

}  // namespace weft::backends::nccl_plugin
