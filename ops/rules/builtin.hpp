// The built-in rule families (SPEC §5), one file each; RegisterBuiltins adds them all.
#pragma once

#include <string>

#include "common/result.hpp"
#include "ops/engine/registry.hpp"

namespace weft::ops {

Status RegisterPointwise(Registry& r);            // pointwise.cpp
KernelFn PointwiseKernel(const std::string& op);  // pointwise_kernel.cpp: nullptr if unknown
Status RegisterMatmul(Registry& r);               // matmul.cpp
Status RegisterLinear(Registry& r);               // linear.cpp
Status RegisterEinsum(Registry& r);               // einsum.cpp
Status RegisterView(Registry& r);                 // view.cpp
Status RegisterConcat(Registry& r);               // concat.cpp
Status RegisterIndex(Registry& r);                // index.cpp
Status RegisterReduction(Registry& r);            // reduction.cpp
Status RegisterNorm(Registry& r);                 // norm.cpp
Status RegisterEmbedding(Registry& r);            // embedding.cpp
Status RegisterScan(Registry& r);                 // scan.cpp
Status RegisterSelect(Registry& r);               // select.cpp
Status RegisterAttention(Registry& r);            // attention.cpp
Status RegisterConv(Registry& r);                 // conv.cpp
Status RegisterPool(Registry& r);                 // pool.cpp
Status RegisterPad(Registry& r);                  // pad.cpp
KernelFn WindowKernel(const std::string& op);     // window_kernel.cpp: conv, pool, pad
Status RegisterConvTranspose(Registry& r);        // conv_transpose.cpp
Status RegisterInterp(Registry& r);               // interp.cpp
Status RegisterNeighborhood(Registry& r);         // neighborhood.cpp
Status RegisterOffsetStencil(Registry& r);        // offset_stencil.cpp

inline Status RegisterBuiltins(Registry& r) {
  WEFT_RETURN_IF_ERROR(RegisterPointwise(r));
  WEFT_RETURN_IF_ERROR(RegisterMatmul(r));
  WEFT_RETURN_IF_ERROR(RegisterLinear(r));
  WEFT_RETURN_IF_ERROR(RegisterEinsum(r));
  WEFT_RETURN_IF_ERROR(RegisterView(r));
  WEFT_RETURN_IF_ERROR(RegisterConcat(r));
  WEFT_RETURN_IF_ERROR(RegisterIndex(r));
  WEFT_RETURN_IF_ERROR(RegisterReduction(r));
  WEFT_RETURN_IF_ERROR(RegisterNorm(r));
  WEFT_RETURN_IF_ERROR(RegisterEmbedding(r));
  WEFT_RETURN_IF_ERROR(RegisterScan(r));
  WEFT_RETURN_IF_ERROR(RegisterSelect(r));
  WEFT_RETURN_IF_ERROR(RegisterAttention(r));
  WEFT_RETURN_IF_ERROR(RegisterConv(r));
  WEFT_RETURN_IF_ERROR(RegisterPool(r));
  WEFT_RETURN_IF_ERROR(RegisterPad(r));
  WEFT_RETURN_IF_ERROR(RegisterConvTranspose(r));
  WEFT_RETURN_IF_ERROR(RegisterInterp(r));
  WEFT_RETURN_IF_ERROR(RegisterNeighborhood(r));
  WEFT_RETURN_IF_ERROR(RegisterOffsetStencil(r));
  return Status::Ok();
}

}  // namespace weft::ops
