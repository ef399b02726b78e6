// The collective driver of weft_checkpoint_load (docs/checkpoint.md): every rank reads the
// index, checks its requests against it, reads the byte runs that meet its destination blocks
// (verifying the checksum of each box it reads whole), and the ranks agree on the outcome.
#pragma once

#include "common/status.hpp"
#include "weft/checkpoint.h"

namespace weft::api::ckpt {

Status Load(weft_context_t* ctx, const char* path, int32_t n, const char* const* names,
            const weft_layout_t* const* layouts, DLTensor* const* tensors,
            const weft_checkpoint_load_options_t* opts);

}  // namespace weft::api::ckpt
