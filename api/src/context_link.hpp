// What the mesh and layout calls need to know of a context, kept apart from the runtime so
// that the metadata API does not depend on it.
#pragma once

#include <cstdint>

#include "common/result.hpp"
#include "weft/types.h"

namespace weft::api {

// The world size of ctx, or INVALID_ARGUMENT naming `name` if ctx is not a live context.
Result<int32_t> ContextWorldSize(const weft_context_t* ctx, const char* name);
// The calling process's world rank in ctx, or the same error.
Result<int32_t> ContextRank(const weft_context_t* ctx, const char* name);

}  // namespace weft::api
