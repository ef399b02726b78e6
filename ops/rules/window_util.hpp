// What the windowed families (conv.cpp, pool.cpp, pad.cpp, interp.cpp, neighborhood.cpp,
// stencil.cpp) share: the spatial dims of channels-first or channels-last tensors, per-dim
// attributes given once or per dim, and the strategy that shards one spatial dim through its
// window (docs/design/rules.md "Windowed operators").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/attributes.hpp"
#include "ops/engine/kernel.hpp"
#include "ops/engine/rule.hpp"

namespace weft::ops {

// Where a [N, C, spatial...] (channels first) or [N, spatial..., C] (channels last) tensor of
// `ndim` dims keeps its dims.
struct SpatialDims {
  int32_t batch = 0, channel = 1;
  std::vector<int32_t> spatial;
  static SpatialDims Of(int32_t ndim, bool channels_last);
};

// Attribute `name` as one value per spatial dim: absent -> `fallback` each, one value -> that
// value each, `n` values -> as given; an error naming the operator and attribute otherwise,
// or when a value is below `min`.
Result<std::vector<int64_t>> PerDim(const std::string& op, const Attributes& a, const char* name,
                                    size_t n, int64_t fallback, int64_t min);

// Attribute `name` as low and high padding per spatial dim: one value (all dims, both sides),
// `n` values (per dim, both sides) or 2·n values (lo0, hi0, lo1, hi1, ...); >= 0.
Result<std::pair<std::vector<int64_t>, std::vector<int64_t>>> Padding(const std::string& op,
                                                                      const Attributes& a,
                                                                      const char* name, size_t n);

// N_out of `op` over `extent` rows; an error naming the operator when it has no output rows.
Result<int64_t> WindowExtent(const std::string& op, int64_t extent,
                             const placement::halo::WindowOp& w);

// conv's and conv_backward_weight's attributes (conv.cpp), per spatial dim.
struct ConvAttrs {
  std::vector<int64_t> stride, dilation, pad_lo, pad_hi;
  int64_t groups = 1;
  bool channels_last = false;
};
Result<ConvAttrs> ReadConvAttrs(const std::string& op, const Attributes& a, size_t n);
// Spatial dim i's window for a kernel of `kernel` taps.
placement::halo::WindowOp ConvWindow(const ConvAttrs& c, size_t i, int64_t kernel);

// max_pool's and avg_pool's attributes (pool.cpp) for an input of shape `x`: one window per
// spatial dim, ceil_mode's extra rows already in pad_hi (`extra` says how many).
struct PoolAttrs {
  std::vector<placement::halo::WindowOp> windows;
  std::vector<int64_t> extra;
  bool count_include_pad = true, channels_last = false;
};
Result<PoolAttrs> ReadPoolAttrs(const std::string& op, bool max, const std::vector<int64_t>& x,
                                const Attributes& a);

// The global index of this rank's block of output `o` (zeros on one process).
std::vector<int64_t> OutputOffset(const KernelCall& call, size_t o);

// Whether input `input`'s dim `dim` arrives padded by a halo (KernelCall::halos).
bool HasHalo(const KernelCall& call, size_t input, int32_t dim);

// x and w of a convolution-like op: 3 to 5 dims alike; an error naming `op` otherwise. The
// spatial dims count (x's dims − 2) on success.
Result<size_t> ConvOperands(const std::string& op, const std::vector<int64_t>& x,
                            const std::vector<int64_t>& w);

// The strategies of a convolution-like op (conv, conv_transpose) over x, w, optional bias and
// the output: all R; the batch; when `groups` is 1, output channels (w's dim `w_out`, the bias,
// the output's channel dim) and input channels (x's channels with w's dim `w_in` -> P(sum), the
// bias P(sum)); each spatial dim through its window; and linearity in x or in w alone.
void AddConvStrategies(RuleResult* r, bool bias, const SpatialDims& sd, int64_t groups,
                       int32_t w_out, int32_t w_in,
                       const std::vector<placement::halo::WindowOp>& windows);

// Adds the strategy sharding input dim `in` and output dim `out` (S on both, `others` on every
// other tensor, in tensor order with the two S codes already placed) and its window.
void AddWindowStrategy(RuleResult* r, std::vector<PlacementCode> codes, const WindowDim& w);

}  // namespace weft::ops
