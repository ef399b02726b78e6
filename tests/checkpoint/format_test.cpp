// The pure parts of checkpoints: crc32c, safetensors headers, the index's validation and box
// lookup, the byte runs of a partial read, and who writes replicated blocks.
#include <gtest/gtest.h>

#include <cstring>

#include "checkpoint/crc32c.hpp"
#include "checkpoint/index.hpp"
#include "checkpoint/load_plan.hpp"
#include "checkpoint/safetensors.hpp"

namespace weft::checkpoint {
namespace {

TEST(Crc32c, KnownVectorsAndChaining) {
  EXPECT_EQ(Crc32c(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c(0, "", 0), 0u);
  const char text[] = "The quick brown fox jumps over the lazy dog, twice or more";
  const size_t n = std::strlen(text);
  for (size_t cut = 0; cut <= n; ++cut)
    EXPECT_EQ(Crc32c(Crc32c(0, text, cut), text + cut, n - cut), Crc32c(0, text, n));
}

TEST(Safetensors, HeaderIsAlignedAndParsesBack) {
  std::vector<StEntry> entries = {{"w@0,0", DType{kCodeFloat, 32, 1}, {2, 3}, 0, 24},
                                  {"z@0", DType{kCodeComplex, 64, 1}, {2}, 24, 40}};
  auto h = StHeader(entries, {{"format", "weft-checkpoint"}});
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->size() % 8, 0u);
  uint64_t n = 0;
  std::memcpy(&n, h->data(), 8);
  EXPECT_EQ(n + 8, h->size());
  auto f = StParse(h->substr(8), h->size(), "test");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->entries.size(), 2u);
  EXPECT_EQ(f->entries[1].key, "z@0");
  EXPECT_EQ(f->entries[1].shape, (std::vector<int64_t>{2, 2}));  // complex as float pairs
  EXPECT_EQ(f->metadata.at("format"), "weft-checkpoint");
  entries[1].begin = 30;
  EXPECT_FALSE(StHeader(entries, {}).ok());  // not packed
  EXPECT_FALSE(StDTypeName(DType{kCodeOpaque, 32, 1}).ok());
}

Box MakeBox(std::vector<int64_t> off, std::vector<int64_t> shape) {
  Box b;
  b.ndim = static_cast<int32_t>(off.size());
  for (size_t d = 0; d < off.size(); ++d) {
    b.offset[d] = off[d];
    b.shape[d] = shape[d];
  }
  return b;
}

IndexTensor Grid() {  // [6, 4] cut into rows {3, 0, 3} and columns {1, 3}
  IndexTensor t;
  t.name = "t";
  t.dtype = DType{kCodeFloat, 32, 1};
  t.shape = {6, 4};
  t.pieces = {{3, 0, 3}, {1, 3}};
  for (auto [r0, rows] : {std::pair<int64_t, int64_t>{0, 3}, {3, 3}})
    for (auto [c0, cols] : {std::pair<int64_t, int64_t>{0, 1}, {1, 3}}) {
      IndexBox b;
      b.box = MakeBox({r0, c0}, {rows, cols});
      b.nbytes = static_cast<uint64_t>(rows * cols * 4);
      t.boxes.push_back(b);
    }
  return t;
}

TEST(Index, FinishChecksTilingAndFindsTouchingBoxes) {
  IndexTensor t = Grid();
  ASSERT_TRUE(Finish(t, "idx").ok());
  EXPECT_EQ(BoxesTouching(t, MakeBox({2, 0}, {2, 1})), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(BoxesTouching(t, MakeBox({4, 2}, {1, 1})), (std::vector<int64_t>{3}));
  EXPECT_EQ(BoxesTouching(t, MakeBox({0, 0}, {6, 4})).size(), 4u);
  EXPECT_TRUE(BoxesTouching(t, MakeBox({0, 0}, {0, 4})).empty());
  IndexTensor missing = Grid();
  missing.boxes.pop_back();
  const Status s = Finish(missing, "idx");
  EXPECT_NE(s.message().find("some data is missing"), std::string::npos) << s.message();
  IndexTensor twice = Grid();
  twice.boxes[1] = twice.boxes[0];
  EXPECT_NE(Finish(twice, "idx").message().find("appears twice"), std::string::npos);
  IndexTensor off = Grid();
  off.boxes[0].box.shape[0] = 2;
  off.boxes[0].nbytes = 8;
  EXPECT_NE(Finish(off, "idx").message().find("not a piece"), std::string::npos);
}

TEST(Index, JsonRoundTrip) {
  Index index;
  index.world_size = 4;
  index.files = {"rank-00000.safetensors"};
  index.tensors.push_back(Grid());
  for (IndexBox& b : index.tensors[0].boxes) b.key = "k";
  index.tensors[0].mesh_shape = {2, 2};
  index.tensors[0].placements = {{1, 0}, {0, 0}};
  auto back = IndexFromJson(IndexToJson(index), "idx");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->tensors[0].boxes.size(), 4u);
  EXPECT_EQ(back->tensors[0].placements[0].kind, 1);
  EXPECT_FALSE(IndexFromJson("{\"format\": 3}", "idx").ok());
  EXPECT_FALSE(IndexFromJson("not json", "idx").ok());
}

TEST(LoadPlan, RunsAreMergedAndCoverTheRegion) {
  const Box box = MakeBox({0, 0, 0}, {4, 5, 6});
  // Whole rows of the last two dims: one run per first-dim index, merged into one.
  auto runs = RunsOf(box, MakeBox({1, 0, 0}, {2, 5, 6}), 2, 100);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].offset, 100u + 1 * 60);
  EXPECT_EQ(runs[0].nbytes, 2u * 60);
  // A column block: one run of 3 elements per (i, j).
  runs = RunsOf(box, MakeBox({0, 1, 2}, {2, 2, 3}), 1, 0);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].offset, 1u * 6 + 2);
  EXPECT_EQ(runs[1].offset, 2u * 6 + 2);
  EXPECT_EQ(runs[2].offset, 30u + 6 + 2);
  for (const checkpoint::Run& r : runs) EXPECT_EQ(r.nbytes, 3u);
  // A scalar box.
  runs = RunsOf(MakeBox({}, {}), MakeBox({}, {}), 8, 16);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].nbytes, 8u);
}

}  // namespace
}  // namespace weft::checkpoint
