#include "api/src/checkpoint_device.hpp"

#include "device/queue.hpp"

namespace weft::api::ckpt {
namespace {

namespace ex = placement::executor;

size_t BytesOf(const ex::TensorView& v) { return static_cast<size_t>(v.block.Volume() * v.item); }

// Device to host: straight when the block is one run in device memory, else packed there first
// (one strided copy on the device, then one transfer, instead of a transfer per row).
Status DownloadOne(const device::Queue& q, const ex::TensorView& v, char* host,
                   std::vector<device::Buffer>& keep) {
  const size_t bytes = BytesOf(v);
  if (ex::IsContiguous(v, v.block)) return q.ToHost(host, v.data, bytes);
  WEFT_ASSIGN_OR_RETURN(device::Buffer packed, q.Allocate(bytes));
  WEFT_RETURN_IF_ERROR(ex::Pack(q, v, v.block, packed.data()));
  WEFT_RETURN_IF_ERROR(q.ToHost(host, packed.data(), bytes));
  keep.push_back(std::move(packed));
  return Status::Ok();
}

Status UploadOne(const device::Queue& q, const char* host, const ex::TensorView& v,
                 std::vector<device::Buffer>& keep) {
  const size_t bytes = BytesOf(v);
  if (ex::IsContiguous(v, v.block)) return q.FromHost(v.data, host, bytes);
  WEFT_ASSIGN_OR_RETURN(device::Buffer packed, q.Allocate(bytes));
  WEFT_RETURN_IF_ERROR(q.FromHost(packed.data(), host, bytes));
  WEFT_RETURN_IF_ERROR(ex::Unpack(q, packed.data(), v, v.block));
  keep.push_back(std::move(packed));
  return Status::Ok();
}

// Waits for every queue used, also after a failure: transfers already enqueued read or write
// host copies that must not be freed before they are done.
Status Drain(const std::vector<device::Queue>& used, Status first) {
  for (const device::Queue& q : used) {
    Status s = q.Synchronize();
    if (first.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace

bool IsHostMemory(DLDevice d) { return d.device_type == kDLCPU || d.device_type == kDLCUDAHost; }

Status HostCopies::Download(std::vector<Item>& items) {
  std::vector<device::Buffer> keep;  // device packing buffers, until the transfers are done
  std::vector<device::Queue> used;
  for (Item& it : items) {
    if (IsHostMemory(it.device) || it.view.block.Empty()) continue;
    Result<device::Queue> q = device::Queue::For(it.device, stream_);
    Status s = q.status();
    if (q.ok()) {
      used.push_back(*q);
      Copy c{it.name, it.view, it.device, std::vector<char>(BytesOf(it.view))};
      s = DownloadOne(*q, it.view, c.host.data(), keep);
      it.view = ex::CompactView(c.host.data(), it.view.block, it.view.item);
      copies_.push_back(std::move(c));
    }
    if (!s.ok()) return Drain(used, Status(s.code(), "tensor " + it.name + ": " + s.message()));
  }
  return Drain(used, Status::Ok());
}

void HostCopies::Redirect(std::vector<Item>& items) {
  for (Item& it : items) {
    if (IsHostMemory(it.device) || it.view.block.Empty()) continue;
    Copy c{it.name, it.view, it.device, std::vector<char>(BytesOf(it.view))};
    it.view = ex::CompactView(c.host.data(), it.view.block, it.view.item);
    copies_.push_back(std::move(c));
  }
}

Status HostCopies::Upload() {
  std::vector<device::Buffer> keep;
  std::vector<device::Queue> used;
  for (const Copy& c : copies_) {
    Result<device::Queue> q = device::Queue::For(c.device, stream_);
    Status s = q.status();
    if (q.ok()) {
      used.push_back(*q);
      s = UploadOne(*q, c.host.data(), c.device_view, keep);
    }
    if (!s.ok()) return Drain(used, Status(s.code(), "tensor " + c.name + ": " + s.message()));
  }
  return Drain(used, Status::Ok());
}

}  // namespace weft::api::ckpt
