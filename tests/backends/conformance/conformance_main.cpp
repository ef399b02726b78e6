// Entry point of the multi-process conformance suite: run under weftrun (or mpirun, srun,
// torchrun) with the backend chosen by WEFT_BACKEND; every rank runs every case in the same
// order.
#include <gtest/gtest.h>

#include <cstdio>

#include "world.hpp"

namespace conformance {

World& TheWorld() {
  static World w;
  return w;
}

class WorldEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    World& w = TheWorld();
    const weft_status_t s = weft_context_create(nullptr, &w.ctx);
    if (s != WEFT_OK) {
      std::fprintf(stderr, "weft_context_create: %s\n", weft_last_error());
      std::exit(2);
    }
    weft_context_rank(w.ctx, &w.rank);
    weft_context_world_size(w.ctx, &w.size);
  }
  void TearDown() override {
    const weft_status_t s = weft_context_destroy(TheWorld().ctx);
    if (s != WEFT_OK) {
      std::fprintf(stderr, "weft_context_destroy: %s\n", weft_last_error());
      std::exit(3);
    }
  }
};

}  // namespace conformance

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new conformance::WorldEnvironment());  // gtest owns it
  return RUN_ALL_TESTS();
}
