// The load half of the resharding suite: whatever the world size, read the checkpoint that 4
// ranks saved in [S0,S1] on 2x2 into R, S1, ragged splits (with empty pieces) and [S1,S0],
// checking every element against the formula; and list it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "tests/checkpoint/harness.hpp"

namespace ckpt_test {
namespace {

using weft_test::TheWorld;

std::vector<int64_t> MeshFor2D(int32_t w) {
  if (w % 2 == 0 && w > 2) return {2, w / 2};
  return {w, 1};
}

enum class Target { kReplicate, kShardLast, kRagged, kSwapped };

// The destination placements (and splits) of spec s for a target.
void Destination(const Spec& s, Target target, int32_t world, std::vector<std::string>* pl,
                 std::vector<std::vector<int64_t>>* splits) {
  const bool two_d = target == Target::kSwapped;
  if (s.shape.empty() || (target != Target::kReplicate && s.shape.size() < 2)) {
    pl->assign(two_d ? 2 : 1, "R");
    return;
  }
  switch (target) {
    case Target::kReplicate:
      *pl = {"R"};
      return;
    case Target::kShardLast:
      *pl = {"S" + std::to_string(s.shape.size() - 1)};
      return;
    case Target::kRagged:
      *pl = {"S0"};
      splits->assign(1, RaggedSizes(s.shape[0], world));
      return;
    case Target::kSwapped:
      *pl = {"S1", "S0"};
      return;
  }
}

void LoadAll(Target target, int32_t verify) {
  const int32_t world = TheWorld().size;
  const bool two_d = target == Target::kSwapped;
  weft_test::Mesh mesh(two_d ? MeshFor2D(world) : std::vector<int64_t>{world});
  const auto& specs = SavedSpecs();
  std::vector<std::unique_ptr<weft_test::Layout>> layouts;
  std::vector<Block> blocks;
  std::vector<const char*> names;
  std::vector<const weft_layout_t*> ls;
  std::vector<DLTensor*> ts;
  for (size_t t = 0; t < specs.size(); ++t) {
    const Spec& s = specs[t];
    std::vector<std::string> pl;
    std::vector<std::vector<int64_t>> splits;
    Destination(s, target, world, &pl, &splits);
    layouts.push_back(std::make_unique<weft_test::Layout>(mesh, s.shape, s.dtype, pl, splits));
    ASSERT_EQ(layouts.back()->status, WEFT_OK) << s.name << ": " << weft_last_error();
    blocks.push_back(MakeBlock(layouts.back()->l, s.dtype, TheWorld().rank, PadFor(t)));
  }
  for (size_t t = 0; t < specs.size(); ++t) {
    names.push_back(specs[t].name.c_str());
    ls.push_back(layouts[t]->l);
    ts.push_back(&blocks[t].tensor);
  }
  weft_checkpoint_load_options_t opts = WEFT_CHECKPOINT_LOAD_OPTIONS_INIT;
  opts.verify = verify;
  WEFT_OK_OR_FAIL(weft_checkpoint_load(TheWorld().ctx, SavedPath().c_str(),
                                       static_cast<int32_t>(specs.size()), names.data(), ls.data(),
                                       ts.data(), &opts));
  for (size_t t = 0; t < specs.size(); ++t)
    EXPECT_EQ(Mismatches(blocks[t], specs[t].dtype, static_cast<int>(t), specs[t].shape), 0)
        << specs[t].name << " on rank " << TheWorld().rank;
}

TEST(Load, Replicate) { LoadAll(Target::kReplicate, 0); }
TEST(Load, ShardLastDim) { LoadAll(Target::kShardLast, 0); }
TEST(Load, RaggedWithEmptyPieces) { LoadAll(Target::kRagged, 0); }
TEST(Load, SwappedTwoD) { LoadAll(Target::kSwapped, 0); }
TEST(Load, ShardLastDimVerifyingPartialBoxes) { LoadAll(Target::kShardLast, 1); }

TEST(Load, ListsTensorsAndSavedLayouts) {
  weft_checkpoint_t* c = nullptr;
  WEFT_OK_OR_FAIL(weft_checkpoint_open(SavedPath().c_str(), &c));
  int32_t n = 0;
  WEFT_OK_OR_FAIL(weft_checkpoint_num_tensors(c, &n));
  EXPECT_EQ(n, static_cast<int32_t>(SavedSpecs().size()));
  // name -> (boxes, placement kinds): replicated data is written once; Partial was reduced.
  const std::vector<std::tuple<std::string, int64_t, int32_t, int32_t>> want = {
      {"dt_f32", 4, WEFT_SHARD, WEFT_SHARD},
      {"replicated", 1, WEFT_REPLICATE, WEFT_REPLICATE},
      {"half_rep", 2, WEFT_SHARD, WEFT_REPLICATE},
      {"zero_size", 0, WEFT_SHARD, WEFT_SHARD},
      {"partial", 2, WEFT_SHARD, WEFT_REPLICATE},
      {"empty_shards", 2, WEFT_SHARD, WEFT_SHARD},
      {"ragged", 2, WEFT_SHARD, WEFT_SHARD},
      {"scalar", 1, WEFT_REPLICATE, WEFT_REPLICATE}};
  for (const auto& [name, boxes, p0, p1] : want) {
    int32_t i = -1;
    WEFT_OK_OR_FAIL(weft_checkpoint_find(c, name.c_str(), &i));
    weft_checkpoint_tensor_info_t info = WEFT_CHECKPOINT_TENSOR_INFO_INIT;
    WEFT_OK_OR_FAIL(weft_checkpoint_tensor_info(c, i, &info));
    EXPECT_EQ(info.num_boxes, boxes) << name;
    EXPECT_EQ(info.mesh_ndim, 2) << name;
    EXPECT_EQ(info.mesh_shape[0], 2);
    EXPECT_EQ(info.placements[0].kind, p0) << name;
    EXPECT_EQ(info.placements[1].kind, p1) << name;
  }
  int32_t i = -1;
  WEFT_OK_OR_FAIL(weft_checkpoint_find(c, "ragged", &i));
  int64_t sizes[4] = {}, count = 0;
  WEFT_OK_OR_FAIL(weft_checkpoint_tensor_pieces(c, i, 0, sizes, 4, &count));
  EXPECT_EQ(count, 2);
  EXPECT_EQ(sizes[0], 7);
  EXPECT_EQ(sizes[1], 3);
  char buf[64];
  size_t needed = 0;
  WEFT_OK_OR_FAIL(weft_checkpoint_tensor_name(c, i, buf, sizeof(buf), &needed));
  EXPECT_STREQ(buf, "ragged");
  EXPECT_EQ(weft_checkpoint_find(c, "nope", &i), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(weft_checkpoint_tensor_info(c, n, nullptr), WEFT_ERR_INVALID_ARGUMENT);
  WEFT_OK_OR_FAIL(weft_checkpoint_close(c));
  // A closed handle, and a handle of another kind, are refused, not dereferenced.
  EXPECT_EQ(weft_checkpoint_num_tensors(c, &n), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(weft_checkpoint_close(c), WEFT_ERR_INVALID_ARGUMENT);
  weft_test::Mesh mesh({TheWorld().size});
  weft_test::Layout layout(mesh, {4}, DLDataType{kDLFloat, 32, 1}, {"R"});
  EXPECT_EQ(weft_checkpoint_num_tensors(reinterpret_cast<const weft_checkpoint_t*>(layout.l), &n),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(weft_last_error()).find("weft_layout_t"), std::string::npos)
      << weft_last_error();
}

}  // namespace
}  // namespace ckpt_test
