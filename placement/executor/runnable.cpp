#include "placement/executor/runnable.hpp"

namespace weft::placement::executor {
namespace {

Operand LocalBlock(const Layout& layout, int32_t rank, std::string name) {
  Operand o;
  o.name = std::move(name);
  o.dtype = layout.dtype();
  o.block.ndim = layout.ndim();
  layout.LocalBlock(rank, o.block.shape.data(), o.block.offset.data());
  o.what = "rank " + std::to_string(rank) + "'s local block";
  return o;
}

}  // namespace

Operands Redistribution::Expect(const Call&) const {
  const size_t n = size();
  Operands ops;
  ops.in.resize(n);
  ops.out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string at = n == 1 ? "" : "[" + std::to_string(i) + "]";
    if (takes_in()) ops.in[i] = LocalBlock(src(i), rank(), "in" + at);
    if (takes_out()) ops.out[i] = LocalBlock(dst(i), rank(), "out" + at);
  }
  ops.overlap_note = " (redistribute has no in-place form)";
  ops.mixed_devices =
      n == 1 ? "in and out are on different devices" : "the buffers are on different devices";
  return ops;
}

}  // namespace weft::placement::executor
