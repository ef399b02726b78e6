// What the mesh and layout calls need to know of a context, kept apart from the runtime so
// that the metadata API does not depend on it.
#pragma once

#include <cstdint>

#include "weft/types.h"

namespace weft::api {

// The world size of ctx, or a negative value if ctx is not a live context.
int64_t ContextWorldSize(const weft_context_t* ctx) noexcept;
// The calling process's world rank in ctx.
int32_t ContextRank(const weft_context_t* ctx) noexcept;

}  // namespace weft::api
