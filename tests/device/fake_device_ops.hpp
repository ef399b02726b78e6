// A fake device for tests: operations registered for a non-host device type whose memory is
// really host memory. Each call is counted, its target checked (the device and stream the
// executor was given must reach every operation), then done by the host operations. Allocation
// fails on request, to test that errors propagate. What the CUDA implementation's tests will do
// with a fake CUDA runtime, without one.
#pragma once

#include <cstdint>
#include <string>

#include "device/host/host_ops.hpp"
#include "device/ops.hpp"

namespace weft::device::test {

class FakeDeviceOps final : public Ops {
 public:
  explicit FakeDeviceOps(Target expected) : expected_(expected) {}

  // Single-threaded use: the executors' tests run one rank per process.
  int allocs = 0, frees = 0, copies = 0, fills = 0, reduces = 0, widens = 0, narrows = 0;
  int transfers = 0, syncs = 0;
  int wrong_target = 0;
  size_t fail_allocations_from = SIZE_MAX;  // Allocate of this many bytes or more fails
  long long live_bytes = 0;

  const char* name() const override { return "fake"; }
  Result<void*> Allocate(const Target& t, size_t bytes) override {
    Note(t, allocs);
    if (bytes >= fail_allocations_from)
      return Status(Code::kOutOfMemory, "fake device: no memory for " + std::to_string(bytes));
    live_bytes += static_cast<long long>(bytes);
    return host::HostOps::Get().Allocate(Target{}, bytes);
  }
  void Free(const Target& t, void* p, size_t bytes) noexcept override {
    Note(t, frees);
    live_bytes -= static_cast<long long>(bytes);
    host::HostOps::Get().Free(Target{}, p, bytes);
  }
  Status Copy(const Target& t, const Region& dst, const ConstRegion& src, const Shape& shape,
              int64_t item) override {
    Note(t, copies);
    return host::HostOps::Get().Copy(Target{}, dst, src, shape, item);
  }
  Status Fill(const Target& t, const Region& dst, const Shape& shape, const void* element,
              int64_t item) override {
    Note(t, fills);
    return host::HostOps::Get().Fill(Target{}, dst, shape, element, item);
  }
  Status Reduce(const Target& t, DType type, ReduceOp op, const Region& inout,
                const ConstRegion& in, const Shape& shape) override {
    Note(t, reduces);
    return host::HostOps::Get().Reduce(Target{}, type, op, inout, in, shape);
  }
  Status Widen(const Target& t, DType type, const void* src, void* acc, uint64_t count) override {
    Note(t, widens);
    return host::HostOps::Get().Widen(Target{}, type, src, acc, count);
  }
  Status Narrow(const Target& t, DType type, const void* acc, void* dst, uint64_t count,
                int64_t divisor) override {
    Note(t, narrows);
    return host::HostOps::Get().Narrow(Target{}, type, acc, dst, count, divisor);
  }
  Status ToHost(const Target& t, void* host, const void* src, size_t bytes) override {
    Note(t, transfers);
    return host::HostOps::Get().ToHost(Target{}, host, src, bytes);
  }
  Status FromHost(const Target& t, void* dst, const void* host, size_t bytes) override {
    Note(t, transfers);
    return host::HostOps::Get().FromHost(Target{}, dst, host, bytes);
  }
  Status Synchronize(const Target& t) override {
    Note(t, syncs);
    return Status::Ok();
  }

 private:
  void Note(const Target& t, int& counter) {
    ++counter;
    if (t.device.device_type != expected_.device.device_type ||
        t.device.device_id != expected_.device.device_id || t.stream != expected_.stream)
      ++wrong_target;
  }

  Target expected_;
};

// Registers `ops` for its device type for the scope's duration.
class ScopedRegistration {
 public:
  ScopedRegistration(int32_t type, Ops* ops) : type_(type) { ok_ = RegisterOps(type, ops).ok(); }
  ~ScopedRegistration() { (void)RegisterOps(type_, nullptr); }
  ScopedRegistration(const ScopedRegistration&) = delete;
  ScopedRegistration& operator=(const ScopedRegistration&) = delete;
  bool ok() const { return ok_; }

 private:
  int32_t type_;
  bool ok_ = false;
};

}  // namespace weft::device::test
