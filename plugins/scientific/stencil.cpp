// stencil: rule and reference kernel. The band reaches `r` elements past each end of a block,
// so a sharded `dim` needs a halo exchange; until the spatial rules (issue 23) say so, no
// strategy shards `dim` and the engine brings it whole. Linear in x: Partial passes.
#include <string>
#include <vector>

#include "ops.hpp"

namespace scientific {
namespace {

struct Args {
  int32_t dim = 0;
  const int64_t* w = nullptr;
  int64_t taps = 0;
};

weft_status_t Read(int32_t ndim, weft_rule_ctx_t* ctx, Args* a) {
  int64_t d = 0;
  if (weft_status_t s = host->attr_int(ctx, "dim", nullptr, &d); s != WEFT_OK) return s;
  if (d < 0) d += ndim;
  if (weft_status_t s = host->attr_ints(ctx, "weights", &a->w, &a->taps); s != WEFT_OK) return s;
  std::string why;
  if (d < 0 || d >= ndim) {
    why = "dim " + std::to_string(d) + " is not a dim of x";
  } else if (a->taps % 2 == 0) {
    why = "weights needs an odd number of taps, centred";
  }
  if (!why.empty()) {
    host->rule_error(ctx, ("stencil: " + why).c_str());
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  a->dim = static_cast<int32_t>(d);
  return WEFT_OK;
}

}  // namespace

weft_status_t StencilRule(void*, const weft_rule_tensor_t* in, int32_t, weft_rule_ctx_t* ctx) {
  Args a;
  if (weft_status_t s = Read(in[0].ndim, ctx, &a); s != WEFT_OK) return s;
  return AlongDimStrategies(in[0], a.dim, -1, ctx);
}

weft_status_t StencilKernel(void*, const weft_kernel_tensor_t* in, int32_t,
                            weft_kernel_tensor_t* out, int32_t, weft_rule_ctx_t* ctx) {
  const weft_kernel_tensor_t& x = in[0];
  Args a;
  if (weft_status_t s = Read(x.ndim, ctx, &a); s != WEFT_OK) return s;
  const int64_t n = x.shape[a.dim], r = a.taps / 2;
  int64_t inner = 1, outer = 1;
  for (int32_t d = a.dim + 1; d < x.ndim; ++d) inner *= x.shape[d];
  for (int32_t d = 0; d < a.dim; ++d) outer *= x.shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < a.taps; ++j) {
          const int64_t t = k + j - r;
          if (t >= 0 && t < n)
            sum += static_cast<double>(a.w[j]) * x.values[(o * n + t) * inner + i];
        }
        out[0].values[(o * n + k) * inner + i] = sum;
      }
  return WEFT_OK;
}

}  // namespace scientific
