// Memory that the device layer allocates: a Buffer owns one allocation and knows its device; a
// Workspace is the reusable scratch memory of an executor (staging, intermediate blocks), kept
// across executions, grown to the largest request and never shrunk by one.
#pragma once

#include <cstddef>

#include "common/result.hpp"
#include "device/ops.hpp"

namespace weft::device {

class Buffer {
 public:
  Buffer() = default;
  // `bytes` on t.device through `ops`; an empty Buffer for 0 bytes.
  static Result<Buffer> Allocate(Ops& ops, const Target& t, size_t bytes);

  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { Reset(); }

  char* data() const { return data_; }
  size_t size() const { return size_; }
  const Target& target() const { return target_; }
  // Frees the memory (ordered after the work queued on the stream it was allocated on, or
  // last rebound to).
  void Reset() noexcept;
  // Hands the memory to t.stream (same device): later frees are ordered on it. The caller has
  // made sure the old stream's work on the memory is done.
  void Rebind(const Target& t) { target_.stream = t.stream; }

 private:
  Ops* ops_ = nullptr;
  Target target_;
  char* data_ = nullptr;
  size_t size_ = 0;
};

class Workspace {
 public:
  // At least `bytes` on t.device: the memory held when it is large enough and on that device,
  // else new memory (the old is freed first and its contents are not kept). Null only when
  // nothing has ever been asked for. Memory last used on another stream of the device is
  // waited for there first (Synchronize: a host wait, paid once when a plan moves to another
  // stream), so that t.stream's work never meets the old stream's; it then belongs to t.stream.
  Result<char*> Reserve(Ops& ops, const Target& t, size_t bytes);

  size_t capacity() const { return buf_.size(); }
  DLDevice device() const { return buf_.target().device; }
  Stream stream() const { return buf_.target().stream; }
  char* data() const { return buf_.data(); }

 private:
  Buffer buf_;
};

}  // namespace weft::device
