// What a rule says about an operator (SPEC §5; docs/design/rules.md): the outputs' shapes and
// dtypes, and the dim strategies — one placement code per input and output valid on any
// single mesh dim. The engine expands them across the mesh dims; a rule never sees a mesh.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/dtype.hpp"
#include "common/result.hpp"
#include "ops/engine/attributes.hpp"
#include "placement/halo/derive/derive.hpp"
#include "placement/halo/halo_spec.hpp"

namespace weft::ops {

// One tensor's placement on one mesh dim: R, S(dim) or P(op).
struct PlacementCode {
  enum class Kind : uint8_t { kReplicate, kShard, kPartial };
  Kind kind = Kind::kReplicate;
  int32_t dim = 0;               // kShard: the tensor dim
  ReduceOp op = ReduceOp::kSum;  // kPartial
  static PlacementCode R() { return {}; }
  static PlacementCode S(int32_t d) { return {Kind::kShard, d, ReduceOp::kSum}; }
  static PlacementCode P(ReduceOp o) { return {Kind::kPartial, 0, o}; }
  friend bool operator==(const PlacementCode&, const PlacementCode&) = default;
};

// "R", "S(1)", "P(sum)".
std::string PlacementCodeName(const PlacementCode& c);

struct TensorInfo {
  std::vector<int64_t> shape;
  DType dtype;
};

// A dim of tensor `tensor`: inputs are numbered first, then outputs.
struct DimRef {
  int32_t tensor = 0;
  int32_t dim = 0;
  friend bool operator==(const DimRef&, const DimRef&) = default;
};

// Communication an operator does itself under a dim strategy, over the mesh dim the strategy
// is chosen for (vocab-parallel cross-entropy's all-reduces of row maxima and sums, cumsum's
// exchange of shard totals): redistribute does not see it, so the engine adds its cost. The
// message is `width` elements per element of tensor `tensor`'s block in the candidate layout
// with dim `dim` collapsed to one (an all-gather: every rank of the group contributes one).
struct OpComm {
  enum class Kind : uint8_t { kAllReduce, kAllGather };
  Kind kind = Kind::kAllReduce;
  int32_t tensor = 0;  // inputs first, then outputs (as DimRef)
  int32_t dim = 0;
  int64_t width = 1;
};

// Codes for every input, then every output: one way the op runs on one mesh dim.
struct DimStrategy {
  std::vector<PlacementCode> codes;
  std::vector<OpComm> comm;  // the op's own communication on that mesh dim; usually none
};

// An output dim's split computed from the splits the candidate gives input dims, where it is
// not a copy of one (docs/design/rules.md "Derived splits"). Applies when the output dim is
// sharded; every `from` dim must then be sharded by the same mesh dims, piece p of the output
// made from piece p of each, or the candidate is invalid (the engine redistributes instead).
struct DerivedSplit {
  enum class Kind : uint8_t {
    kScale,   // sizes[p] = from[0].sizes[p] * num / den; invalid unless every one divides
    kConcat,  // sizes[p] = sum over `from` of their sizes[p] (cat of local pieces); invalid
              // unless the pieces stay in order: none of an input after one of a later input
    kWindow,  // sizes[p] = |piece p of from[0] ∩ [start, start + length)| (narrow)
  };
  Kind kind = Kind::kScale;
  DimRef out;                     // an output's dim (tensors numbered inputs first)
  std::vector<DimRef> from;       // input dims: one, or several for kConcat
  int64_t num = 1, den = 1;       // kScale
  int64_t start = 0, length = 0;  // kWindow
};

// A windowed dim (SPEC §4.5; docs/design/rules.md "Windowed operators"): output dim `out` is
// computed from input dim `in` through `op` (a convolution, a pooling window, a pad, an
// interpolation, a neighbourhood). Where a candidate shards `in` (the rule's strategy shards
// both, S(in) and S(out)), the engine derives the output's split from the input's
// (DeriveWindows) and gives the input a halo: an exchange into each rank's window of rows, so
// the local kernel runs unpadded on the padded block. `lo`/`hi` fill the rows past the edges
// (op.pad_lo / pad_hi of them; kConstant with `fill`: zeros for a convolution, -inf for a
// max pool). Every windowed dim of one input must share one fill. `out` may also be a later
// input's dim that must be cut like the output (the output gradient of a weight gradient).
struct WindowDim {
  DimRef in, out;
  placement::halo::WindowOp op;
  placement::halo::Boundary lo = placement::halo::Boundary::kConstant;
  placement::halo::Boundary hi = placement::halo::Boundary::kConstant;
  double fill = 0.0;
};

struct RuleResult {
  std::vector<TensorInfo> outputs;
  // In the rule's order of preference: ties between candidates of equal cost go to the
  // earlier strategy (mesh dim 0 first), so every rank picks the same.
  std::vector<DimStrategy> strategies;
  // Dims that must be cut alike when the same mesh dims shard them (an elementwise pair, a
  // matmul's contracted dims, an output dim and the input dim it comes from): the engine
  // gives them one split, so uneven and explicit splits carry through exactly.
  std::vector<std::vector<DimRef>> aligned;
  // Output dims whose pieces are made otherwise (reshape, cat, narrow along a sharded dim);
  // they take precedence over `aligned`.
  std::vector<DerivedSplit> derived;
  // Windowed dims: the input halos and the output splits they give.
  std::vector<WindowDim> windows;
};

// A rule: checks the inputs (shapes, dtypes, attributes) and fills the result. Pure and
// deterministic: every rank calls it with the same arguments and must get the same answer.
using RuleFn =
    std::function<Status(std::span<const TensorInfo> inputs, const Attributes&, RuleResult*)>;

// "[4,6]": shapes in rules' messages.
std::string ShapeText(std::span<const int64_t> shape);

// The all-R strategy for `tensors` tensors (every rule lists it: the fallback that always
// exists).
DimStrategy Replicated(size_t tensors);

}  // namespace weft::ops
