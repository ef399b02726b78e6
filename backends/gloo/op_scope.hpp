// What every op does around its own work: entry checks, the deadline and Gloo tag from
// weft_bk_op_t, catching whatever Gloo throws, and handing out the request.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "backends/gloo/deadline.hpp"
#include "backends/gloo/gloo_comm.hpp"

namespace weft::backends::gloo_plugin {

class Request;

class OpScope {
 public:
  // args NULL: host memory, the context's default deadline, seq 0.
  OpScope(Comm& comm, const std::string& name, const weft_bk_op_t* args);

  // The communicator is usable and the buffers are host memory.
  weft_status_t Begin();

  // Checks a buffer of `count` elements of `item` bytes: no overflow, not NULL unless empty.
  weft_status_t CheckBuffer(const char* what, const void* ptr, uint64_t count, uint64_t item,
                            uint64_t* bytes) const;

  // Reports "<op>: <what>" and returns status.
  weft_status_t Fail(weft_status_t status, const std::string& what) const;

  // Runs the Gloo part of the op; anything it throws becomes the op's status (and poisons
  // the communicator, see Comm::FailWith).
  template <typename F>
  weft_status_t Run(F&& body) {
    try {
      body();
      return WEFT_OK;
    } catch (...) {
      return comm_.FailWith(op_, ClassifyCurrentException()).status;
    }
  }

  // The op finished: *req (when asked for) gets an already complete request.
  weft_status_t Complete(weft_bk_request_t** req) const;

  const std::string& op() const { return op_; }
  const Deadline& deadline() const { return deadline_; }
  int64_t timeout_ms() const { return args_.timeout_ms; }
  uint32_t flags() const { return args_.flags; }  // 0 from a host before ABI 1.3
  std::chrono::milliseconds gloo_timeout() const { return GlooTimeout(deadline_); }

 private:
  Comm& comm_;
  std::string op_;
  weft_bk_op_t args_{};
  Deadline deadline_;
};

}  // namespace weft::backends::gloo_plugin
