// One tensor dim of a window, cut into runs of rows that each read one kind of source: the
// receiver's own rows, one other piece's rows (possibly mirrored by reflect/symmetric, or all
// reading one edge row by replicate), or the constant (SPEC §4.2). Products of these runs over
// the windowed dims are the boxes a halo plan moves.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/halo/halo_spec.hpp"
#include "placement/halo/windows.hpp"

namespace weft::placement::halo {

struct DimSeg {
  int64_t dst = 0, len = 0;  // window rows [dst, dst + len), global indices
  bool constant = false;     // filled with the plan's constant
  int64_t src = 0;           // lowest source row read
  // +1: row dst + i reads src + i; -1 (mirrored): reads src + len - 1 - i; 0: every row reads src.
  int8_t step = 1;
  int64_t piece = 0;   // the piece owning the source rows
  bool owned = false;  // rows of the receiver's own range, read in place (identity)
  int64_t src_len() const { return step == 0 ? 1 : len; }
};

// The runs of window [begin, end) of a rank owning [a, b) of a dim of extent n whose nonempty
// pieces are `t`, with the low and high rules; the window was checked (Geometry).
std::vector<DimSeg> Segments(int64_t begin, int64_t end, int64_t a, int64_t b, int64_t n,
                             Boundary lo, Boundary hi, const PieceTable& t);

}  // namespace weft::placement::halo
