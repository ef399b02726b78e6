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

inline Status RegisterBuiltins(Registry& r) {
  WEFT_RETURN_IF_ERROR(RegisterPointwise(r));
  WEFT_RETURN_IF_ERROR(RegisterMatmul(r));
  WEFT_RETURN_IF_ERROR(RegisterLinear(r));
  WEFT_RETURN_IF_ERROR(RegisterEinsum(r));
  WEFT_RETURN_IF_ERROR(RegisterView(r));
  WEFT_RETURN_IF_ERROR(RegisterConcat(r));
  WEFT_RETURN_IF_ERROR(RegisterIndex(r));
  return Status::Ok();
}

}  // namespace weft::ops
