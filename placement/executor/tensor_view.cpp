#include "placement/executor/tensor_view.hpp"

namespace weft::placement::executor {

TensorView CompactView(char* data, const Box& block, int64_t item) {
  TensorView v;
  v.data = data;
  v.item = item;
  v.block = block;
  int64_t s = 1;
  for (int32_t d = block.ndim - 1; d >= 0; --d) {
    v.strides[d] = s;
    s *= block.shape[d];
  }
  return v;
}

bool IsContiguous(const TensorView& v, const Box& box) {
  if (box.Empty()) return true;
  // Each dim that the box spans more than once must step over exactly the inner dims' extent.
  int64_t inner = 1;
  for (int32_t d = box.ndim - 1; d >= 0; --d) {
    if (box.shape[d] > 1 && v.strides[d] != inner) return false;
    inner *= box.shape[d];
  }
  return true;
}

device::Shape ShapeOf(const Box& box) { return device::Shape{box.ndim, box.shape.data()}; }

device::Region RegionOf(const TensorView& v, const Box& box) {
  return device::Region{box.Empty() ? nullptr : v.At(box.offset.data()), v.strides.data()};
}

Status CopyBox(const device::Queue& q, const TensorView& from, const TensorView& to,
               const Box& box) {
  if (box.Empty()) return Status::Ok();
  return q.Copy(RegionOf(to, box), RegionOf(from, box), ShapeOf(box), from.item);
}

Status Pack(const device::Queue& q, const TensorView& v, const Box& box, char* dst) {
  if (box.Empty()) return Status::Ok();
  const device::Shape s = ShapeOf(box);
  device::Dims packed;
  return q.Copy(device::Compact(dst, s, packed), RegionOf(v, box), s, v.item);
}

Status Unpack(const device::Queue& q, const char* src, const TensorView& v, const Box& box) {
  if (box.Empty()) return Status::Ok();
  const device::Shape s = ShapeOf(box);
  device::Dims packed;
  return q.Copy(RegionOf(v, box), device::Compact(src, s, packed), s, v.item);
}

Status FillBox(const device::Queue& q, const TensorView& v, const Box& box, const void* element) {
  if (box.Empty()) return Status::Ok();
  return q.Fill(RegionOf(v, box), ShapeOf(box), element, v.item);
}

}  // namespace weft::placement::executor
