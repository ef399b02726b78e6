// What the opaque handles of the C ABI hold. Handles own shared references, so a layout keeps
// its mesh alive after the caller destroys the mesh handle.
#pragma once

#include "placement/layout.hpp"
#include "placement/mesh.hpp"
#include "weft/types.h"

struct weft_mesh {
  weft::placement::MeshPtr mesh;
};

struct weft_layout {
  weft::placement::LayoutPtr layout;
};
