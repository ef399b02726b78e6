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
  const int64_t c = (extent + pieces - 1) / pieces;
  // c·index can exceed extent (and overflow for huge meshes): clamp before multiplying.
  const int64_t begin = index >= (extent + c - 1) / c ? extent : c * index;
  const int64_t end = index + 1 >= (extent + c - 1) / c ? extent : c * (index + 1);
  return {begin, end - begin};
}

}  // namespace weft::placement
