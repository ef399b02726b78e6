// The objects behind mesh and layout handles. They own shared references, so a layout keeps
// its mesh alive after the caller destroys the mesh handle.
#pragma once

#include "api/src/handle_ref.hpp"
#include "placement/layout.hpp"
#include "placement/mesh.hpp"
#include "weft/types.h"

namespace weft::api {

struct MeshObject {
  placement::MeshPtr mesh;
};
struct LayoutObject {
  placement::LayoutPtr layout;
};

template <>
struct HandleTraits<weft_mesh> {
  using Object = MeshObject;
  static constexpr HandleKind kKind = HandleKind::kMesh;
};
template <>
struct HandleTraits<weft_layout> {
  using Object = LayoutObject;
  static constexpr HandleKind kKind = HandleKind::kLayout;
};

}  // namespace weft::api
