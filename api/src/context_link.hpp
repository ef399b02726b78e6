// What the mesh and layout calls need to know of a context, kept apart from the runtime so
// that the metadata API does not depend on it.
#pragma once

#include <cstdint>

#include "common/result.hpp"
#include "placement/mesh.hpp"
#include "weft/types.h"

namespace weft::api {

// A context handle as the owner identity its meshes keep: the handle's value, which the handle
// table resolves back (a destroyed context's identity then names a destroyed handle).
inline placement::ContextId IdOf(const weft_context_t* ctx) {
  return placement::ContextId(reinterpret_cast<uintptr_t>(ctx));
}

// The world size of ctx, or INVALID_ARGUMENT naming `name` if ctx is not a live context.
Result<int32_t> ContextWorldSize(const weft_context_t* ctx, const char* name);
// The calling process's world rank in ctx, or the same error.
Result<int32_t> ContextRank(const weft_context_t* ctx, const char* name);
Result<int32_t> ContextRank(placement::ContextId ctx, const char* name);

}  // namespace weft::api
