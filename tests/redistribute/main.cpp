// Entry point of the multi-process redistribute suite, run under weftrun: every rank runs
// every case in the same order on one context.
#include <cstdio>

#include "harness.hpp"

namespace redist {

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
    // After a case that aborts the context on purpose, destroy reports that abort.
    if (weft_context_destroy(TheWorld().ctx) != WEFT_OK && !TheWorld().expect_abort) {
      std::fprintf(stderr, "weft_context_destroy: %s\n", weft_last_error());
      std::exit(3);
    }
  }
};

}  // namespace redist

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new redist::WorldEnvironment());  // gtest owns it
  return RUN_ALL_TESTS();
}
