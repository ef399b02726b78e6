// The scientific rule plugin's operators: rules and reference kernels written against the rule
// plugin ABI only (weft/rules_plugin.h), as a framework's own plugin would be.
#pragma once

#include <weft/rules_plugin.h>

namespace scientific {

// fft(x [..., n, ..., 2], dim, inverse=false): the discrete Fourier transform along `dim` of a
// complex tensor stored as (re, im) pairs in its last dim (torch.view_as_real's form).
weft_status_t FftRule(void* user, const weft_rule_tensor_t* in, int32_t n, weft_rule_ctx_t* ctx);
weft_status_t FftKernel(void* user, const weft_kernel_tensor_t* in, int32_t n_in,
                        weft_kernel_tensor_t* out, int32_t n_out, weft_rule_ctx_t* ctx);

// stencil(x, dim, weights): y[i] = sum_j weights[j] x[i + j - r] along `dim`, r =
// len(weights) / 2, zero outside the tensor (a banded operator, as in finite differences).
weft_status_t StencilRule(void* user, const weft_rule_tensor_t* in, int32_t n,
                          weft_rule_ctx_t* ctx);
weft_status_t StencilKernel(void* user, const weft_kernel_tensor_t* in, int32_t n_in,
                            weft_kernel_tensor_t* out, int32_t n_out, weft_rule_ctx_t* ctx);

// The strategies of an operator that maps x to an output of x's shape, acting along
// `along` (which no strategy shards) and `also` (-1: none), and linear in x: R; S(d) on
// both for every other dim; P(sum) and P(avg) through.
weft_status_t AlongDimStrategies(const weft_rule_tensor_t& x, int32_t along, int32_t also,
                                 weft_rule_ctx_t* ctx);

extern const weft_rules_host_t* host;  // set by register_ops before any rule runs

}  // namespace scientific
