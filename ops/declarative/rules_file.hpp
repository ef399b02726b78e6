// Rules files (SPEC §5 "declarative rules"; docs/design/rules.md): operators registered at
// run time with no compiler. A versioned text format, one declaration a line:
//
//   weft-rules 1
//   # a comment; blank lines are fine
//   einsum attn_scores "bhqd,bhkd->bhqk" unshardable=d
//   einsum scale_rows  "ij,i->ij" linear=0
//   alias  my_mm matmul
//
// `einsum NAME EQUATION [linear=all|none|I,J,...] [unshardable=LETTERS]`: EQUATION quoted
// (spaces allowed) or one bare word; `linear` lists the inputs a P(sum)/P(avg) may pass through
// (default all: an einsum is linear in each input); `unshardable` letters stay R.
// `alias NAME TARGET`: another name for a registered operator (or one earlier in the file).
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "ops/engine/registry.hpp"

namespace weft::ops {

inline constexpr int kRulesFileVersion = 1;

// The declarations of `text`; `origin` (a path, "<string>") names them in sources and errors.
// Errors: kInvalidArgument "ORIGIN:LINE:COLUMN: ..." at the first fault.
Result<RegistryBatch> ParseRules(std::string_view text, const std::string& origin);

// Reads `path` (at most kMaxRulesFileBytes), parses it and adds everything or nothing.
inline constexpr size_t kMaxRulesFileBytes = 16 << 20;
Status LoadRulesFile(Registry& registry, const std::string& path);

}  // namespace weft::ops
