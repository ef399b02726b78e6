// Entry point of the multi-process halo suite, run under weftrun: every rank runs every case
// in the same order on one context. Cases pick their meshes from the world size, so every
// case runs in every launch.
#include <cstdio>
#include <cstdlib>

#include "harness.hpp"

namespace halo {

World& TheWorld() {
  static World w;
  return w;
}

class WorldEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    World& w = TheWorld();
    if (weft_context_create(nullptr, &w.ctx) != WEFT_OK) {
      std::fprintf(stderr, "weft_context_create: %s\n", weft_last_error());
      std::exit(2);
    }
    weft_context_rank(w.ctx, &w.rank);
    weft_context_world_size(w.ctx, &w.size);
  }
  void TearDown() override {
    if (weft_context_destroy(TheWorld().ctx) != WEFT_OK) {
      std::fprintf(stderr, "weft_context_destroy: %s\n", weft_last_error());
      std::exit(3);
    }
  }
};

}  // namespace halo

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new halo::WorldEnvironment());  // gtest owns it
  return RUN_ALL_TESTS();
}
