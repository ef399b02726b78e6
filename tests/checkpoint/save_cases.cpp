// The save half of the resharding suite: 4 ranks on a 2x2 mesh write every saved spec (the
// launches of load_cases.cpp read it back on 2, 3 and 8 ranks).
#include <gtest/gtest.h>

#include <memory>

#include "tests/checkpoint/harness.hpp"

namespace ckpt_test {
namespace {

using weft_test::TheWorld;

TEST(Save, FourRanksTwoByTwo) {
  ASSERT_EQ(TheWorld().size, 4) << "the save launch runs on 4 ranks";
  weft_test::Mesh mesh({2, 2});
  const auto& specs = SavedSpecs();
  std::vector<std::unique_ptr<weft_test::Layout>> layouts;
  std::vector<Block> blocks;
  std::vector<const char*> names;
  std::vector<const weft_layout_t*> ls;
  std::vector<const DLTensor*> ts;
  for (size_t t = 0; t < specs.size(); ++t) {
    const Spec& s = specs[t];
    layouts.push_back(
        std::make_unique<weft_test::Layout>(mesh, s.shape, s.dtype, s.placements, s.splits));
    ASSERT_EQ(layouts.back()->status, WEFT_OK) << s.name << ": " << weft_last_error();
    blocks.push_back(MakeBlock(layouts.back()->l, s.dtype, TheWorld().rank, PadFor(t)));
    if (s.name == "partial")
      FillPartial(blocks.back(), static_cast<int>(t), s.shape, TheWorld().rank % 2);
    else
      Fill(blocks.back(), s.dtype, static_cast<int>(t), s.shape);
  }
  for (size_t t = 0; t < specs.size(); ++t) {
    names.push_back(specs[t].name.c_str());
    ls.push_back(layouts[t]->l);
    ts.push_back(&blocks[t].tensor);
  }
  weft_checkpoint_save_options_t opts = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
  opts.overwrite = 1;
  const std::string path = SavedPath();
  WEFT_OK_OR_FAIL(weft_checkpoint_save(TheWorld().ctx, path.c_str(),
                                       static_cast<int32_t>(specs.size()), names.data(), ls.data(),
                                       ts.data(), &opts, nullptr));
}

}  // namespace
}  // namespace ckpt_test
