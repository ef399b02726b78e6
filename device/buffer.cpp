#include "device/buffer.hpp"

#include <utility>

namespace weft::device {

Result<Buffer> Buffer::Allocate(Ops& ops, const Target& t, size_t bytes) {
  Buffer b;
  b.ops_ = &ops;
  b.target_ = t;
  if (bytes == 0) return b;
  WEFT_ASSIGN_OR_RETURN(void* p, ops.Allocate(t, bytes));
  b.data_ = static_cast<char*>(p);
  b.size_ = bytes;
  return b;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    Reset();
    ops_ = std::exchange(o.ops_, nullptr);
    target_ = o.target_;
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

void Buffer::Reset() noexcept {
  if (data_ != nullptr) ops_->Free(target_, data_, size_);
  data_ = nullptr;
  size_ = 0;
}

Result<char*> Workspace::Reserve(Ops& ops, const Target& t, size_t bytes) {
  const DLDevice held = buf_.target().device;
  const bool same_device =
      held.device_type == t.device.device_type && held.device_id == t.device.device_id;
  if (buf_.data() != nullptr && same_device && buf_.size() >= bytes) {
    if (buf_.target().stream != t.stream) {
      WEFT_RETURN_IF_ERROR(ops.Synchronize(buf_.target()));
      buf_.Rebind(t);
    }
    return buf_.data();
  }
  if (bytes == 0 && buf_.data() == nullptr) return nullptr;
  buf_.Reset();  // first, so that the old and the new never need to fit together
  WEFT_ASSIGN_OR_RETURN(buf_, Buffer::Allocate(ops, t, bytes));
  return buf_.data();
}

}  // namespace weft::device
