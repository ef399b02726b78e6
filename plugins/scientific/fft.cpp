// fft: rule and reference kernel. The transform needs its whole dim on one rank, so no
// strategy shards `dim` (or the (re, im) pair); every other dim may be, and a sharded `dim`
// costs the engine a redistribute to shard another dim instead — the transpose of a
// distributed FFT, chosen by the cost model rather than written here.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "ops.hpp"

namespace scientific {
namespace {

weft_status_t Dim(const int64_t ndim, weft_rule_ctx_t* ctx, int32_t* dim) {
  int64_t d = 0;
  const int64_t zero = 0;
  if (weft_status_t s = host->attr_int(ctx, "dim", &zero, &d); s != WEFT_OK) return s;
  if (d < 0) d += ndim - 1;  // counted among the complex dims, without the pair
  if (d < 0 || d >= ndim - 1) {
    host->rule_error(ctx, ("fft: dim " + std::to_string(d) + " is not a complex dim of a " +
                           std::to_string(ndim) + "-dim (re, im) tensor")
                              .c_str());
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  *dim = static_cast<int32_t>(d);
  return WEFT_OK;
}

}  // namespace

weft_status_t FftRule(void*, const weft_rule_tensor_t* in, int32_t, weft_rule_ctx_t* ctx) {
  const weft_rule_tensor_t& x = in[0];
  if (x.ndim < 2 || x.shape[x.ndim - 1] != 2 || x.dtype.code != kDLFloat) {
    host->rule_error(ctx, "fft: x must be a float tensor [..., 2] of (re, im) pairs");
    return WEFT_ERR_INVALID_ARGUMENT;
  }
  int32_t dim = 0;
  if (weft_status_t s = Dim(x.ndim, ctx, &dim); s != WEFT_OK) return s;
  return AlongDimStrategies(x, dim, x.ndim - 1, ctx);
}

weft_status_t FftKernel(void*, const weft_kernel_tensor_t* in, int32_t, weft_kernel_tensor_t* out,
                        int32_t, weft_rule_ctx_t* ctx) {
  const weft_kernel_tensor_t& x = in[0];
  int32_t dim = 0;
  if (weft_status_t s = Dim(x.ndim, ctx, &dim); s != WEFT_OK) return s;
  int32_t inverse = 0;
  const int32_t no = 0;
  if (weft_status_t s = host->attr_bool(ctx, "inverse", &no, &inverse); s != WEFT_OK) return s;
  const int64_t n = x.shape[dim];
  int64_t inner = 1, outer = 1;  // complex elements after `dim`, and slices before it
  for (int32_t d = dim + 1; d < x.ndim - 1; ++d) inner *= x.shape[d];
  for (int32_t d = 0; d < dim; ++d) outer *= x.shape[d];
  const double sign = inverse ? 1.0 : -1.0, scale = inverse && n > 0 ? 1.0 / n : 1.0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      for (int64_t k = 0; k < n; ++k) {
        double re = 0, im = 0;
        for (int64_t t = 0; t < n; ++t) {
          const double* v = x.values + 2 * ((o * n + t) * inner + i);
          const double a = sign * 2 * std::numbers::pi * static_cast<double>((t * k) % n) / n;
          re += v[0] * std::cos(a) - v[1] * std::sin(a);
          im += v[0] * std::sin(a) + v[1] * std::cos(a);
        }
        double* y = out[0].values + 2 * ((o * n + k) * inner + i);
        y[0] = re * scale;
        y[1] = im * scale;
      }
  return WEFT_OK;
}

}  // namespace scientific
