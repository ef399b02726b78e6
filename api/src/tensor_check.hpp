// Checks of the DLTensors that plans read and write (SPEC §6.2), shared by redistribute and
// halo executions: a tensor must be exactly a given global box of a dtype, on the host, with
// non-negative strides that stay inside it; outputs may not repeat elements. And the in-flight
// flag that allows one execution per plan at a time.
#pragma once

#include <dlpack/dlpack.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "common/dtype.hpp"
#include "common/result.hpp"
#include "placement/executor/tensor_view.hpp"

namespace weft::api {

// Views t as holding `block` (global coordinates). `what` names the block in errors ("rank 3's
// local block"); `name` names the argument.
Result<placement::executor::TensorView> CheckView(const DLTensor* t, const std::string& name,
                                                  DType dtype, const placement::planner::Box& block,
                                                  const std::string& what, bool output);

// Bytes [lo, hi) a view can touch (nulls for an empty view).
std::pair<const char*, const char*> Extent(const placement::executor::TensorView& v);
bool Overlap(const placement::executor::TensorView& a, const placement::executor::TensorView& b);

// Clears a plan's in-flight flag when the execution ends, or when its operation is dropped
// without running (a context that failed first).
class BusyFlag {
 public:
  explicit BusyFlag(std::shared_ptr<std::atomic<bool>> busy) : busy_(std::move(busy)) {}
  ~BusyFlag() { Release(); }
  BusyFlag(const BusyFlag&) = delete;
  BusyFlag& operator=(const BusyFlag&) = delete;
  void Release() {
    if (busy_ && !released_.exchange(true)) busy_->store(false);
  }

 private:
  std::shared_ptr<std::atomic<bool>> busy_;
  std::atomic<bool> released_{false};
};

}  // namespace weft::api
