// libFuzzer target for layout creation and local-block queries through placement/ (SPEC §2.1,
// §2.2, §2.3, §10). The bytes decode into a mesh (small shape, optional rank list, optional
// slice/flatten), a tensor (shape, dtype), placements and optional explicit splits. Every
// outcome is checked against an oracle written from the spec, not from placement/: creation
// must succeed exactly when the spec says the request is valid, and every block must be the
// piece the chunk rule (or the explicit split) gives, inside the global shape, tiling it.
//
// Input format (tests/fuzz/make_seed_corpus.py writes seeds in it): a byte stream read from the
// front; a short input reads as zeros, so every prefix of a valid input is valid too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "placement/layout.hpp"
#include "placement/mesh.hpp"

namespace {

using weft::DType;
using weft::ReduceOp;
using weft::placement::ContextId;
using weft::placement::Coord;
using weft::placement::DimSplit;
using weft::placement::IsShard;
using weft::placement::kMaxTensorDims;
using weft::placement::Layout;
using weft::placement::Mesh;
using weft::placement::MeshPtr;
using weft::placement::Partial;
using weft::placement::Placement;
using weft::placement::Replicate;
using weft::placement::Shard;
__extension__ typedef __int128 i128;

// A violated invariant: say which, then trap so that libFuzzer keeps the input.
#define FUZZ_CHECK(cond)                                                           \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "layout_fuzz:%d: check failed: %s\n", __LINE__, #cond); \
      __builtin_trap();                                                            \
    }                                                                              \
  } while (0)

// clang-format off
constexpr int64_t kExtremes[16] = {
    INT64_MAX,     INT64_MAX - 1,  INT64_MAX / 2,          INT64_MAX / 2 + 1,
    int64_t{1} << 62, INT32_MAX,   int64_t{INT32_MAX} + 1, UINT32_MAX,
    -1,            -2,             INT64_MIN,              int64_t{1} << 31,
    INT64_MAX / 3, INT64_MAX / 16, (int64_t{1} << 62) + 1, 1000003};
// clang-format on

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint8_t U8() { return p_ < end_ ? *p_++ : 0; }
  int64_t I64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | U8();
    return static_cast<int64_t>(v);
  }
  // Mostly small extents, sometimes 14-bit ones, sometimes values at the overflow guards.
  int64_t Extent() {
    const uint8_t b = U8();
    if (b < 0x80) return b & 0x1f;
    if (b < 0xc0) return int64_t{b & 0x3f} << 8 | U8();
    if (b < 0xf0) return kExtremes[b & 0x0f];
    return I64();
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// The dtypes the fuzzer picks from, with what SPEC §2.3/§6.2 says about each.
struct DTypeInfo {
  DType t;
  bool movable, reducible, integral, boolean, complex;
};
constexpr DTypeInfo kDTypes[] = {
    {{2, 32, 1}, 1, 1, 0, 0, 0}, {{2, 64, 1}, 1, 1, 0, 0, 0},  {{2, 16, 1}, 1, 1, 0, 0, 0},
    {{4, 16, 1}, 1, 1, 0, 0, 0}, {{0, 8, 1}, 1, 1, 1, 0, 0},   {{0, 32, 1}, 1, 1, 1, 0, 0},
    {{0, 64, 1}, 1, 1, 1, 0, 0}, {{1, 8, 1}, 1, 1, 1, 0, 0},   {{1, 64, 1}, 1, 1, 1, 0, 0},
    {{5, 64, 1}, 1, 1, 0, 0, 1}, {{5, 128, 1}, 1, 1, 0, 0, 1}, {{6, 8, 1}, 1, 1, 0, 1, 0},
    {{2, 8, 1}, 1, 0, 0, 0, 0},  {{3, 8, 1}, 1, 0, 0, 0, 0},   {{0, 24, 1}, 1, 0, 0, 0, 0},
    {{2, 12, 1}, 0, 0, 0, 0, 0}, {{2, 32, 2}, 0, 0, 0, 0, 0},  {{7, 8, 1}, 0, 0, 0, 0, 0},
    {{2, 0, 1}, 0, 0, 0, 0, 0},  {{2, 32, 0}, 0, 0, 0, 0, 0},
};
constexpr size_t kNumDTypes = sizeof(kDTypes) / sizeof(kDTypes[0]);

constexpr int64_t kMaxCheckedRanks = 512;  // beyond this, check a sample of the mesh's ranks
constexpr ContextId kFakeContext{1};       // a context identity for meshes with a world bound

// ---- The mesh -------------------------------------------------------------------------------

struct MeshInput {
  Mesh::Spec spec;
  uint8_t derive = 0;  // 0: as is; 1: a slice of it; 2: a flattening of it
  std::vector<int32_t> keep;
  int32_t slice_rank = 0, first = 0, count = 0;
};

// What SPEC §2.1 and mesh.h accept.
bool MeshSpecValid(const Mesh::Spec& s) {
  if (s.shape.empty() || s.shape.size() > 16) return false;
  i128 n = 1;
  for (int64_t e : s.shape) {
    if (e < 1) return false;
    n *= e;
    if (n > INT32_MAX) return false;
  }
  if (!s.dim_names.empty()) return false;  // the harness never names dims
  if (!s.ranks) return s.world_size < 0 || n <= s.world_size;
  if (static_cast<i128>(s.ranks->size()) != n) return false;
  std::vector<int32_t> sorted = *s.ranks;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
  return sorted.front() >= 0 && (s.world_size < 0 || sorted.back() < s.world_size);
}

void DecodeRanks(Bytes& in, Mesh::Spec& s, int64_t n) {
  const uint8_t mode = in.U8() % 4;
  if (mode == 0 || n > 4096) return;
  std::vector<int32_t> ranks(static_cast<size_t>(n));
  const int32_t base = in.U8();
  for (int64_t i = 0; i < n; ++i) ranks[i] = static_cast<int32_t>(base + i);
  if (mode == 1) {  // a permutation
    for (int64_t i = n - 1; i > 0; --i) std::swap(ranks[i], ranks[in.U8() % (i + 1)]);
  } else if (mode == 2) {  // a strided list, as a sub-mesh of a bigger world would have
    const int32_t step = 1 + in.U8() % 4;
    for (int64_t i = 0; i < n; ++i) ranks[i] = static_cast<int32_t>(base + i * step);
  } else {  // raw, often duplicate or negative
    for (int64_t i = 0; i < n; ++i) ranks[i] = int32_t{in.U8()} - 128;
  }
  s.ranks = std::move(ranks);
}

MeshInput DecodeMesh(Bytes& in) {
  MeshInput m;
  const uint8_t nd = in.U8();
  const int ndim = nd == 0xff ? 0 : nd == 0xfe ? 17 : 1 + nd % 4;
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    const uint8_t b = in.U8();
    const int64_t e = b == 0xff ? 0 : b == 0xfe ? -1 : 1 + b % 8;
    m.spec.shape.push_back(e);
    n *= std::max<int64_t>(e, 1);
  }
  DecodeRanks(in, m.spec, n);
  const uint8_t world = in.U8() % 4;
  if (world != 0) {
    m.spec.context = kFakeContext;
    m.spec.world_size = world == 1 ? n + 300 : world == 2 ? n - 1 : in.U8();
  }
  m.derive = in.U8() % 3;
  const uint8_t mask = in.U8(), pick = in.U8();
  for (int d = 0; d < ndim; ++d)
    if (mask >> d & 1) m.keep.push_back(d);
  m.slice_rank = static_cast<int32_t>(pick);
  m.first = static_cast<int32_t>(mask % 4);
  m.count = 1 + static_cast<int32_t>(pick % 4);
  return m;
}

// Every rank of the mesh maps to its row-major coordinate and back; nothing else maps.
void CheckMesh(const Mesh& mesh) {
  const int64_t step = std::max<int64_t>(1, mesh.size() / kMaxCheckedRanks);
  int32_t max_rank = -1;
  for (int64_t i = 0; i < mesh.size(); i += step) {
    const int32_t r = mesh.RankAtIndex(i);
    FUZZ_CHECK(r >= 0);
    max_rank = std::max(max_rank, r);
    Coord c{};
    FUZZ_CHECK(mesh.Coordinate(r, c.data()));
    int64_t index = 0;
    for (int32_t d = 0; d < mesh.ndim(); ++d) {
      FUZZ_CHECK(c[d] >= 0 && c[d] < mesh.shape()[d]);
      index = index * mesh.shape()[d] + c[d];
    }
    FUZZ_CHECK(index == i);
    FUZZ_CHECK(mesh.RankAt(c.data()) == r);
  }
  Coord c{};
  FUZZ_CHECK(!mesh.Coordinate(-1, c.data()));
  FUZZ_CHECK(!mesh.Coordinate(INT32_MIN, c.data()));
  if (step == 1 && max_rank < INT32_MAX) FUZZ_CHECK(!mesh.Coordinate(max_rank + 1, c.data()));
}

// A slice holds the ranks that share the sliced rank's coordinates off the kept dims; a
// flattening holds the same ranks in the same order.
void CheckDerived(const Mesh& parent, const Mesh& sub, const MeshInput& m) {
  const int64_t step = std::max<int64_t>(1, sub.size() / kMaxCheckedRanks);
  Coord at{};
  if (m.derive == 1) FUZZ_CHECK(parent.Coordinate(m.slice_rank, at.data()));
  for (int64_t i = 0; i < sub.size(); i += step) {
    const int32_t r = sub.RankAtIndex(i);
    if (m.derive == 2) {
      FUZZ_CHECK(r == parent.RankAtIndex(i));
      continue;
    }
    Coord sc{}, pc{};
    FUZZ_CHECK(sub.Coordinate(r, sc.data()) && parent.Coordinate(r, pc.data()));
    size_t k = 0;
    for (int32_t d = 0; d < parent.ndim(); ++d) {
      if (k < m.keep.size() && m.keep[k] == d) {
        FUZZ_CHECK(pc[d] == sc[k++]);
      } else {
        FUZZ_CHECK(pc[d] == at[d]);
      }
    }
  }
}

// Builds the mesh the layout uses; nullptr when the spec rejects it (after checking that the
// library rejected it too).
MeshPtr BuildMesh(MeshInput& m) {
  const bool valid = MeshSpecValid(m.spec);
  auto created = Mesh::Create(m.spec);
  FUZZ_CHECK(created.ok() == valid);
  if (!created.ok()) return nullptr;
  MeshPtr mesh = *created;
  CheckMesh(*mesh);
  if (m.derive == 0) return mesh;
  const int32_t nd = mesh->ndim();
  Coord c{};
  const bool in_mesh = mesh->Coordinate(m.slice_rank, c.data());
  const bool ok = m.derive == 1 ? !m.keep.empty() && in_mesh
                                : m.first + m.count <= nd;  // first >= 0 and count >= 1 here
  auto derived =
      m.derive == 1 ? mesh->Slice(m.keep, m.slice_rank) : mesh->Flatten(m.first, m.count, "");
  FUZZ_CHECK(derived.ok() == ok);
  if (!derived.ok()) return mesh;
  CheckMesh(**derived);
  CheckDerived(*mesh, **derived, m);
  return *derived;
}

// ---- The layout -----------------------------------------------------------------------------

struct LayoutInput {
  std::vector<int64_t> shape;
  DTypeInfo dtype;
  std::vector<Placement> placements;
  std::vector<std::optional<std::vector<int64_t>>> splits;
  std::vector<int32_t> probes;  // extra ranks to query
};

// The mesh dims that shard tensor dim d, ascending (SPEC §2.2 nesting order).
std::vector<int32_t> ShardingDims(const std::vector<Placement>& ps, int32_t d) {
  std::vector<int32_t> dims;
  for (size_t m = 0; m < ps.size(); ++m)
    if (const auto* s = std::get_if<Shard>(&ps[m]); s && s->dim == d)
      dims.push_back(static_cast<int32_t>(m));
  return dims;
}

int64_t PieceCount(const Mesh& mesh, const std::vector<Placement>& ps, int32_t d) {
  int64_t n = 1;
  for (int32_t m : ShardingDims(ps, d)) n *= mesh.shape()[m];
  return n;
}

// SPEC §2.2: chunk piece i of n over k, in 128 bits so that the oracle cannot overflow.
void Chunk(i128 n, i128 k, i128 i, i128* offset, i128* size) {
  const i128 c = (n + k - 1) / k;
  const i128 begin = std::min(c * i, n), end = std::min(c * (i + 1), n);
  *offset = begin;
  *size = std::max<i128>(0, end - begin);
}

// The nested chunk piece of tensor dim d for a mesh coordinate.
void NestedChunk(const Mesh& mesh, const std::vector<int32_t>& dims, int64_t n,
                 const int64_t* coord, int64_t* offset, int64_t* size) {
  i128 off = 0, len = n;
  for (int32_t m : dims) {
    i128 sub_off = 0, sub_len = 0;
    Chunk(len, mesh.shape()[m], coord[m], &sub_off, &sub_len);
    off += sub_off;
    len = sub_len;
  }
  *size = static_cast<int64_t>(len);
  *offset = len == 0 ? n : static_cast<int64_t>(off);
}

std::vector<int64_t> DecodeSplit(Bytes& in, int64_t extent, int64_t pieces,
                                 const std::vector<int64_t>& chunk) {
  const uint8_t mode = in.U8();
  int64_t count = pieces;
  if (mode & 0x80) count += (mode & 0x40) ? 1 : -1;  // a wrong piece count
  count = std::clamp<int64_t>(count, 0, 4097);
  std::vector<int64_t> sizes(static_cast<size_t>(count));
  if ((mode & 3) == 0 && count == pieces) return chunk;  // equal to the chunk rule
  int64_t left = extent;
  for (int64_t j = 0; j < count; ++j) {
    if ((mode & 3) == 1) {  // sizes that sum to the extent (when it is >= 0)
      sizes[j] = j + 1 == count ? left : std::min<int64_t>(std::max<int64_t>(left, 0), in.U8());
      left -= sizes[j];
    } else {
      sizes[j] = in.Extent();
    }
  }
  return sizes;
}

// The resolved chunk sizes of tensor dim d, in piece order (row-major over the sharding dims).
std::vector<int64_t> ChunkSizes(const Mesh& mesh, const std::vector<Placement>& ps, int32_t d,
                                int64_t extent) {
  const std::vector<int32_t> dims = ShardingDims(ps, d);
  const int64_t pieces = PieceCount(mesh, ps, d);
  std::vector<int64_t> sizes;
  if (pieces > 4096 || extent < 0) return sizes;
  Coord c{};
  for (int64_t p = 0; p < pieces; ++p) {
    int64_t rest = p;
    for (size_t k = dims.size(); k-- > 0;) {
      c[dims[k]] = rest % mesh.shape()[dims[k]];
      rest /= mesh.shape()[dims[k]];
    }
    int64_t offset = 0, size = 0;
    NestedChunk(mesh, dims, extent, c.data(), &offset, &size);
    sizes.push_back(size);
  }
  return sizes;
}

Placement DecodePlacement(Bytes& in, int32_t tensor_ndim) {
  const uint8_t b = in.U8();
  switch (b % 3) {
    case 0:
      return Replicate{};
    case 1:
      return Shard{b >= 0xf0 ? -1 : static_cast<int32_t>((b >> 2) % (tensor_ndim + 1))};
    default:
      return Partial{static_cast<ReduceOp>((b >> 2) % 5)};
  }
}

LayoutInput DecodeLayout(Bytes& in, const Mesh& mesh) {
  LayoutInput l;
  const uint8_t nd = in.U8();
  const int32_t ndim = nd == 0xff ? 33 : nd == 0xfe ? 32 : nd % 5;
  for (int32_t d = 0; d < ndim; ++d) l.shape.push_back(in.Extent());
  l.dtype = kDTypes[in.U8() % kNumDTypes];
  const uint8_t count = in.U8();  // rarely, one placement too few or too many
  const int32_t np = mesh.ndim() + (count == 0xff ? 1 : count == 0xfe ? -1 : 0);
  for (int32_t m = 0; m < np; ++m) l.placements.push_back(DecodePlacement(in, ndim));
  const uint8_t explicit_mask = in.U8();
  if (explicit_mask != 0 && np == mesh.ndim()) {
    for (int32_t d = 0; d < ndim; ++d) {
      if (d >= 8 || !(explicit_mask >> d & 1)) {
        l.splits.emplace_back(std::nullopt);
        continue;
      }
      const int64_t pieces = PieceCount(mesh, l.placements, d);
      l.splits.emplace_back(
          DecodeSplit(in, l.shape[d], pieces, ChunkSizes(mesh, l.placements, d, l.shape[d])));
    }
  }
  for (int i = 0, n = in.U8() % 4; i < n; ++i) l.probes.push_back(static_cast<int32_t>(in.I64()));
  return l;
}

// The global shape's bytes must fit in int64. With a zero extent the tensor is empty, and
// whether an overflowing product of the other extents is rejected is left to the library.
enum class Fit { kYes, kNo, kEither };
Fit BytesFit(const std::vector<int64_t>& shape, int64_t item) {
  i128 n = item;
  bool empty = false, overflow = false;
  for (int64_t e : shape) {
    if (e == 0) empty = true;
    if (e > 0 && !overflow) overflow = (n *= e) > INT64_MAX;
  }
  if (!overflow) return Fit::kYes;
  return empty ? Fit::kEither : Fit::kNo;
}

bool PartialValid(ReduceOp op, const DTypeInfo& t) {
  if (!t.reducible) return false;
  if (op == ReduceOp::kAvg && (t.integral || t.boolean)) return false;
  if ((op == ReduceOp::kMax || op == ReduceOp::kMin) && t.complex) return false;
  return !((op == ReduceOp::kSum || op == ReduceOp::kProd) && t.boolean);
}

bool PlacementsValid(const LayoutInput& l, const Mesh& mesh) {
  if (static_cast<int32_t>(l.placements.size()) != mesh.ndim()) return false;
  std::optional<ReduceOp> first;
  for (const Placement& p : l.placements) {
    if (const auto* s = std::get_if<Shard>(&p)) {
      if (s->dim < 0 || s->dim >= static_cast<int32_t>(l.shape.size())) return false;
    } else if (const auto* q = std::get_if<Partial>(&p)) {
      if (!PartialValid(q->op, l.dtype)) return false;
      const auto sum_avg = [](ReduceOp o) { return o == ReduceOp::kSum || o == ReduceOp::kAvg; };
      if (first && *first != q->op && !(sum_avg(*first) && sum_avg(q->op))) return false;
      if (!first) first = q->op;
    }
  }
  return true;
}

bool SplitsValid(const LayoutInput& l, const Mesh& mesh) {
  for (size_t d = 0; d < l.splits.size(); ++d) {
    if (!l.splits[d]) continue;
    const std::vector<int64_t>& sizes = *l.splits[d];
    if (static_cast<int64_t>(sizes.size()) != PieceCount(mesh, l.placements, int32_t(d)))
      return false;
    i128 sum = 0;
    for (int64_t s : sizes) {
      if (s < 0) return false;
      sum += s;
    }
    if (sum != l.shape[d]) return false;
  }
  return true;
}

// std::nullopt when either answer is allowed (see BytesFit).
std::optional<bool> LayoutValid(const LayoutInput& l, const Mesh& mesh) {
  if (l.shape.size() > 32 || !l.dtype.movable) return false;
  for (int64_t e : l.shape)
    if (e < 0) return false;
  if (!PlacementsValid(l, mesh) || !SplitsValid(l, mesh)) return false;
  const Fit fit = BytesFit(l.shape, l.dtype.t.bits / 8);
  if (fit == Fit::kEither) return std::nullopt;
  return fit == Fit::kYes;
}

// ---- Checks on a valid layout ---------------------------------------------------------------

// The resolved sizes of every dim: the given explicit split, or the chunk rule; they sum to
// the extent. Returns them for the block checks.
std::vector<std::vector<int64_t>> CheckSplits(const Layout& layout, const LayoutInput& l) {
  std::vector<std::vector<int64_t>> resolved;
  for (int32_t d = 0; d < layout.ndim(); ++d) {
    const DimSplit& split = layout.split(d);
    FUZZ_CHECK(split.mesh_dims == ShardingDims(l.placements, d));
    FUZZ_CHECK(split.pieces == PieceCount(layout.mesh(), l.placements, d));
    std::vector<int64_t> sizes = layout.ResolvedSizes(d);
    FUZZ_CHECK(static_cast<int64_t>(sizes.size()) == split.pieces);
    i128 sum = 0;
    for (int64_t s : sizes) sum += s;
    FUZZ_CHECK(sum == l.shape[d]);
    const bool given = d < static_cast<int32_t>(l.splits.size()) && l.splits[d];
    if (given) FUZZ_CHECK(sizes == *l.splits[d]);
    if (!given && split.pieces <= 4096)
      FUZZ_CHECK(sizes == ChunkSizes(layout.mesh(), l.placements, d, l.shape[d]));
    resolved.push_back(std::move(sizes));
  }
  return resolved;
}

// One rank's block is, per dim, piece p of the resolved sizes (p the row-major index of its
// coordinates on the sharding dims) at the sum of the pieces before it; empty pieces sit at the
// extent. Returns the block's element count.
i128 CheckBlock(const Layout& layout, const std::vector<std::vector<int64_t>>& resolved,
                int32_t rank) {
  int64_t shape[kMaxTensorDims], offset[kMaxTensorDims];
  Coord c{};
  const bool in_mesh = layout.mesh().Coordinate(rank, c.data());
  FUZZ_CHECK(layout.LocalBlock(rank, shape, offset) == in_mesh);
  i128 volume = 1;
  for (int32_t d = 0; d < layout.ndim(); ++d) {
    const int64_t n = layout.shape()[d];
    FUZZ_CHECK(shape[d] >= 0 && shape[d] <= n);
    FUZZ_CHECK(offset[d] >= 0 && offset[d] <= n - shape[d]);
    if (shape[d] == 0) FUZZ_CHECK(offset[d] == n);
    if (!in_mesh) {
      FUZZ_CHECK(shape[d] == 0);
      continue;
    }
    int64_t p = 0;
    for (int32_t m : layout.split(d).mesh_dims) p = p * layout.mesh().shape()[m] + c[m];
    const std::vector<int64_t>& sizes = resolved[d];
    if (sizes.size() > 4096) continue;  // a huge split: the bounds above still hold
    i128 before = 0;
    for (int64_t j = 0; j < p; ++j) before += sizes[j];
    FUZZ_CHECK(shape[d] == sizes[p]);
    if (shape[d] > 0) FUZZ_CHECK(offset[d] == before);
    volume *= shape[d];
  }
  return in_mesh ? volume : 0;
}

// Over all ranks, the blocks cover the tensor once per replica: the mesh dims that shard
// nothing hold copies.
void CheckBlocks(const Layout& layout, const LayoutInput& l,
                 const std::vector<std::vector<int64_t>>& resolved) {
  const Mesh& mesh = layout.mesh();
  const bool all = mesh.size() <= kMaxCheckedRanks;
  const int64_t step = all ? 1 : mesh.size() / kMaxCheckedRanks;
  i128 covered = 0;
  for (int64_t i = 0; i < mesh.size(); i += step)
    covered += CheckBlock(layout, resolved, mesh.RankAtIndex(i));
  if (all) {
    i128 copies = 1;
    for (int32_t m = 0; m < mesh.ndim(); ++m)
      if (!IsShard(l.placements[m])) copies *= mesh.shape()[m];
    FUZZ_CHECK(covered == copies * layout.num_elements());
  }
  for (int32_t r : {-1, INT32_MIN, INT32_MAX}) CheckBlock(layout, resolved, r);
  for (int32_t r : l.probes) CheckBlock(layout, resolved, r);
}

// An explicit split equal to the resolved one is the same layout (SPEC §2.3).
void CheckCanonical(const Layout& layout, const Layout::Spec& base,
                    const std::vector<std::vector<int64_t>>& resolved) {
  Layout::Spec spec = base;
  spec.splits.clear();
  for (const auto& sizes : resolved) spec.splits.emplace_back(sizes);
  auto again = Layout::Create(std::move(spec));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK((*again)->SameAs(layout) && layout.SameAs(**again));
  FUZZ_CHECK(!layout.Describe().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  MeshInput mesh_input = DecodeMesh(in);
  const MeshPtr mesh = BuildMesh(mesh_input);
  if (!mesh) return 0;
  const LayoutInput l = DecodeLayout(in, *mesh);
  Layout::Spec spec{mesh, l.shape, l.dtype.t, l.placements, l.splits};
  const std::optional<bool> valid = LayoutValid(l, *mesh);
  auto created = Layout::Create(spec);
  if (valid) FUZZ_CHECK(created.ok() == *valid);
  if (!created.ok()) return 0;
  const Layout& layout = **created;
  FUZZ_CHECK(layout.ndim() == static_cast<int32_t>(l.shape.size()));
  FUZZ_CHECK(layout.shape() == l.shape && layout.dtype() == l.dtype.t);
  FUZZ_CHECK(layout.placements() == l.placements);
  const auto resolved = CheckSplits(layout, l);
  CheckBlocks(layout, l, resolved);
  CheckCanonical(layout, spec, resolved);
  return 0;
}
