// The collective driver of weft_checkpoint_save (docs/checkpoint.md): checks and agrees on the
// arguments, reduces Partial tensors, writes each rank's safetensors file into a temporary
// directory, gathers the checksums and has rank 0 write the index and publish the directory.
#pragma once

#include "common/status.hpp"
#include "weft/checkpoint.h"

namespace weft::api::ckpt {

Status Save(weft_context_t* ctx, const char* path, int32_t n, const char* const* names,
            const weft_layout_t* const* layouts, const DLTensor* const* tensors,
            const weft_checkpoint_save_options_t* opts, weft_work_t** work);

}  // namespace weft::api::ckpt
