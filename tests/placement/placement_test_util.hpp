// Shared helpers of the placement tests: terse builders for meshes and layouts, and the
// reference split rules of SPEC §2.2 written out from the spec text, independently of
// placement/chunk_split.hpp, so that tests compare the library against the spec.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "placement/layout.hpp"
#include "placement/mesh.hpp"

namespace weft::placement::testing {

inline constexpr DType kF32{kCodeFloat, 32, 1};
inline constexpr DType kI32{kCodeInt, 32, 1};
inline constexpr DType kBool{kCodeBool, 8, 1};

struct RefPiece {
  int64_t offset;
  int64_t size;
  friend bool operator==(const RefPiece&, const RefPiece&) = default;
};

// torch.chunk, literally as SPEC §2.2 states it: c = ceil(n/k), size
// max(0, min(n, c·(r+1)) − c·r), offset min(c·r, n). Only for small values (no overflow care).
inline RefPiece RefChunk(int64_t n, int64_t k, int64_t r) {
  const int64_t c = n == 0 ? 0 : (n + k - 1) / k;
  return {std::min(c * r, n), std::max<int64_t>(0, std::min(n, c * (r + 1)) - c * r)};
}

// Nested chunk: each listed extent re-splits the piece of the ones before; an empty piece's
// offset is the global extent n.
inline RefPiece RefNestedChunk(int64_t n, const std::vector<int64_t>& extents,
                               const std::vector<int64_t>& coords) {
  RefPiece p{0, n};
  for (size_t i = 0; i < extents.size(); ++i) {
    const RefPiece sub = RefChunk(p.size, extents[i], coords[i]);
    p = {p.offset + sub.offset, sub.size};
  }
  if (p.size == 0) p.offset = n;
  return p;
}

// Piece `index` of an explicit split: prefix sum, empty pieces at the global extent.
inline RefPiece RefExplicit(const std::vector<int64_t>& sizes, int64_t index) {
  int64_t n = 0, before = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    n += sizes[i];
    if (static_cast<int64_t>(i) < index) before += sizes[i];
  }
  return {sizes[index] == 0 ? n : before, sizes[index]};
}

inline MeshPtr MakeMesh(std::vector<int64_t> shape,
                        std::optional<std::vector<int32_t>> ranks = std::nullopt,
                        std::vector<std::string> names = {}) {
  Mesh::Spec spec;
  spec.shape = std::move(shape);
  spec.ranks = std::move(ranks);
  spec.dim_names = std::move(names);
  auto mesh = Mesh::Create(std::move(spec));
  EXPECT_TRUE(mesh.ok()) << mesh.status().message();
  return mesh.ok() ? *mesh : nullptr;
}

using Splits = std::vector<std::optional<std::vector<int64_t>>>;

inline Result<LayoutPtr> TryLayout(MeshPtr mesh, std::vector<int64_t> shape,
                                   std::vector<Placement> placements, Splits splits = {},
                                   DType dtype = kF32) {
  Layout::Spec spec{std::move(mesh), std::move(shape), dtype, std::move(placements),
                    std::move(splits)};
  return Layout::Create(std::move(spec));
}

inline LayoutPtr MakeLayout(MeshPtr mesh, std::vector<int64_t> shape,
                            std::vector<Placement> placements, Splits splits = {},
                            DType dtype = kF32) {
  auto layout =
      TryLayout(std::move(mesh), std::move(shape), std::move(placements), std::move(splits), dtype);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  return layout.ok() ? *layout : nullptr;
}

struct Block {
  std::vector<int64_t> shape;
  std::vector<int64_t> offset;
  friend bool operator==(const Block&, const Block&) = default;
};

inline Block BlockOf(const Layout& layout, int32_t rank) {
  Block b{std::vector<int64_t>(layout.ndim()), std::vector<int64_t>(layout.ndim())};
  layout.LocalBlock(rank, b.shape.data(), b.offset.data());
  return b;
}

// Sizes and offsets along tensor dim `dim` for ranks 0..n-1 of a default-ranked mesh.
inline std::vector<RefPiece> PiecesByRank(const Layout& layout, int32_t dim) {
  std::vector<RefPiece> out;
  for (int32_t r = 0; r < layout.mesh().size(); ++r) {
    const Block b = BlockOf(layout, r);
    out.push_back({b.offset[dim], b.shape[dim]});
  }
  return out;
}

// Asserts `status` is kInvalidArgument and its message mentions `needle`.
inline ::testing::AssertionResult RejectedNaming(const Status& status, const std::string& needle) {
  if (status.code() != Code::kInvalidArgument)
    return ::testing::AssertionFailure()
           << "code " << static_cast<int>(status.code()) << " (" << status.message() << ")";
  if (status.message().find(needle) == std::string::npos)
    return ::testing::AssertionFailure()
           << "message \"" << status.message() << "\" does not name \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}

inline std::ostream& operator<<(std::ostream& os, const RefPiece& p) {
  return os << "{offset " << p.offset << ", size " << p.size << "}";
}

inline std::ostream& operator<<(std::ostream& os, const Block& b) {
  os << "{shape";
  for (int64_t v : b.shape) os << ' ' << v;
  os << ", offset";
  for (int64_t v : b.offset) os << ' ' << v;
  return os << '}';
}

}  // namespace weft::placement::testing
