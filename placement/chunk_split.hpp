// The default split of one extent into pieces: identical to torch.chunk (SPEC §2.2).
#pragma once

#include <cstdint>

namespace weft::placement {

struct Piece {
  int64_t offset = 0;  // start within the split extent
  int64_t size = 0;
};

// Piece `index` of `extent` split into `pieces` chunks: c = ceil(extent / pieces), size
// max(0, min(extent, c·(index+1)) − c·index), offset min(c·index, extent). Short pieces trail.
inline Piece ChunkPiece(int64_t extent, int64_t pieces, int64_t index) {
  if (extent == 0) return {0, 0};
  // Ceilings without `a + b - 1`: an int8 dim may hold INT64_MAX elements, so that sum
  // overflows.
  const int64_t c = extent / pieces + (extent % pieces != 0);
  const int64_t filled = extent / c + (extent % c != 0);  // pieces that are not empty
  // c·index can exceed extent (and overflow for huge meshes): clamp before multiplying.
  const int64_t begin = index >= filled ? extent : c * index;
  const int64_t end = index + 1 >= filled ? extent : c * (index + 1);
  return {begin, end - begin};
}

}  // namespace weft::placement
