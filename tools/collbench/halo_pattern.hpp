// Halo patterns (--pattern halo...): a float32 tensor sharded evenly over a mesh of the whole
// world, one mesh dim per windowed tensor dim, with a uniform halo of `depth` rows on both
// sides of every windowed dim and periodic boundaries (every rank has two neighbours per dim),
// sized so that one face moves `size` bytes. The geometry here is collbench's own model of the
// exchange, written from SPEC §4 without the library: it places the raw reference's messages
// and the checks' expected values.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::collbench {

struct HaloPattern {
  std::string name;  // as given, e.g. "halo2d-star" or "halo1d-inplace"
  int32_t ndim = 2;  // tensor dims
  // The windowed tensor dims, ascending; mesh dim i shards windowed[i].
  std::vector<int32_t> windowed;
  bool star = false;     // WEFT_STENCIL_STAR (else BOX)
  bool inplace = false;  // weft_halo_exchange_inplace (else weft_halo_exchange)
  // "conv2d-fwd-bwd": a conv layer's halo from the conv2d rule, forward and backward
  // (conv_case.hpp); the fields above do not apply.
  bool conv = false;
};

bool IsHaloPattern(const std::string& item);

// "halo1d", "halo1d-strided", "halo2d-box", "halo2d-star", "halo3d", "halo3d-star", each
// optionally followed by "-inplace", and "conv2d-fwd-bwd"; items that are not halo patterns are
// skipped (they are redistribute patterns). false with *error on a bad halo item.
bool ParseHaloPatterns(const std::string& list, std::vector<HaloPattern>* patterns,
                       std::string* error);

// One row: the world's mesh, this pattern's local block and halo depth at one size.
struct HaloGeometry {
  std::vector<int64_t> mesh_shape;  // one extent per windowed dim
  std::vector<int64_t> local;       // local block extents, one per tensor dim
  int64_t depth = 0;                // halo rows per side in every windowed dim
  int64_t face_bytes = 0;           // bytes of one face (the "size" column)

  std::vector<int64_t> GlobalShape(const HaloPattern& p) const;
  std::vector<int64_t> PaddedShape(const HaloPattern& p) const;
};

// The geometry for faces of about `bytes` (rounded down to whole rows), with the local extent
// along the first windowed dim multiplied by interior_scale (the in-place rows' bigger
// interior, same faces for 1-D patterns); nullopt when a face would be empty.
//  halo1d: [2 P, e], depth 1, face = one contiguous row of e = bytes/4 elements.
//  halo1d-strided: [e/4, 8 P] windowed on dim 1, depth 4: a face is e/4 runs of 16 bytes.
//  halo2d: [n P0, n P1], depth w = the largest power of two with 2w^2 <= e, n = e / w.
//  halo3d: [n P0, n P1, n P2], depth w = the largest power of two with 4w^3 <= e,
//          n = floor(sqrt(e / w)).
std::optional<HaloGeometry> MakeHaloGeometry(const HaloPattern& p, int64_t bytes, int32_t nranks,
                                             int64_t interior_scale);

// The interior scales a pattern's rows use at each size: {1, 8} for in-place 1-D patterns (the
// same halo around an 8x bigger interior), {1} otherwise.
std::vector<int64_t> InteriorScales(const HaloPattern& p);

// n ranks as k near-equal factors, largest first (8 -> 4x2 or 2x2x2; 2 -> 2x1).
std::vector<int64_t> NearCubeShape(int32_t n, int32_t k);

}  // namespace weft::collbench
