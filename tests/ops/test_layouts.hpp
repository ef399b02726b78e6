// Abstract meshes and layouts for the rules tests: no processes, nothing but metadata.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "placement/layout.hpp"

namespace weft::ops::testing {

using placement::LayoutPtr;
using placement::MeshPtr;
using placement::Placement;

inline const DType kF32{kCodeFloat, 32, 1};

inline MeshPtr Mesh(std::vector<int64_t> shape) {
  placement::Mesh::Spec s;
  s.shape = std::move(shape);
  return *placement::Mesh::Create(std::move(s));
}

inline LayoutPtr Make(const MeshPtr& mesh, std::vector<int64_t> shape, std::vector<Placement> p,
                      std::vector<std::optional<std::vector<int64_t>>> splits = {}) {
  placement::Layout::Spec s{mesh, std::move(shape), kF32, std::move(p), std::move(splits)};
  auto l = placement::Layout::Create(std::move(s));
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? *l : nullptr;
}

inline const Placement R = placement::Replicate{};
inline Placement S(int32_t d) { return placement::Shard{d}; }
inline Placement P(ReduceOp op = ReduceOp::kSum) { return placement::Partial{op}; }

}  // namespace weft::ops::testing
