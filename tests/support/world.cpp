#include "tests/support/world.hpp"

#include <cstdio>
#include <cstdlib>

namespace weft_test {
namespace {

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

}  // namespace

World& TheWorld() {
  static World w;
  return w;
}

int RunWorldTests(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new WorldEnvironment());  // gtest owns it
  return RUN_ALL_TESTS();
}

}  // namespace weft_test
