// Errors agreed on every rank: bad arguments, a missing tensor, dtype and shape mismatches,
// a corrupt and a truncated file (the message names the tensor, the file and the box), a save
// over an existing checkpoint, and an atomic overwrite.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "tests/checkpoint/harness.hpp"

namespace ckpt_test {
namespace {

using weft_test::TheWorld;

constexpr DLDataType kF32{kDLFloat, 32, 1};

std::string Dir(const std::string& leaf) {
  return DataDir() + "/errors" + std::to_string(TheWorld().size) + "_" + leaf;
}

void Barrier() {
  ASSERT_EQ(weft_barrier(TheWorld().ctx, nullptr, 0, nullptr, nullptr, nullptr), WEFT_OK);
}

// One float32 tensor "a" of shape [rows, 3] sharded over the world, holding the formula for
// tensor index `t`.
struct Small {
  weft_test::Mesh mesh{{TheWorld().size}};
  weft_test::Layout layout;
  Block block;
  explicit Small(int64_t rows, const char* placement = "S0")
      : layout(mesh, {rows, 3}, kF32, {placement}),
        block(MakeBlock(layout.l, kF32, TheWorld().rank)) {}
};

weft_status_t SaveSmall(const std::string& path, int t, int32_t overwrite) {
  Small s(8);
  Fill(s.block, kF32, t, {8, 3});
  const char* names[] = {"a"};
  const weft_layout_t* ls[] = {s.layout.l};
  const DLTensor* ts[] = {&s.block.tensor};
  weft_checkpoint_save_options_t opts = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
  opts.overwrite = overwrite;
  return weft_checkpoint_save(TheWorld().ctx, path.c_str(), 1, names, ls, ts, &opts, nullptr);
}

// Loads "a" (or `name`) replicated with the given dtype/rows; returns status and message.
std::pair<weft_status_t, std::string> LoadSmall(const std::string& path, const char* name,
                                                DLDataType dt = kF32, int64_t rows = 8,
                                                Block* out = nullptr) {
  weft_test::Mesh mesh({TheWorld().size});
  weft_test::Layout layout(mesh, {rows, 3}, dt, {"R"});
  Block b = MakeBlock(layout.l, dt, TheWorld().rank);
  const char* names[] = {name};
  const weft_layout_t* ls[] = {layout.l};
  DLTensor* ts[] = {&b.tensor};
  const weft_status_t s =
      weft_checkpoint_load(TheWorld().ctx, path.c_str(), 1, names, ls, ts, nullptr);
  const std::string msg = s == WEFT_OK ? "" : weft_last_error();
  if (out != nullptr) *out = std::move(b);
  return {s, msg};
}

TEST(Errors, MissingTensorAndMismatches) {
  const std::string path = Dir("mismatch");
  WEFT_OK_OR_FAIL(SaveSmall(path, 1, 1));
  auto [s1, m1] = LoadSmall(path, "nope");
  EXPECT_EQ(s1, WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(m1.find("tensor nope is not in the checkpoint"), std::string::npos) << m1;
  auto [s2, m2] = LoadSmall(path, "a", DLDataType{kDLFloat, 64, 1});
  EXPECT_EQ(s2, WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(m2.find("saved as float32 but is loaded as float64"), std::string::npos) << m2;
  auto [s3, m3] = LoadSmall(path, "a", kF32, 9);
  EXPECT_EQ(s3, WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(m3.find("saved with shape [8,3] but is loaded with shape [9,3]"), std::string::npos)
      << m3;
  Block b;
  auto [s4, m4] = LoadSmall(path, "a", kF32, 8, &b);
  EXPECT_EQ(s4, WEFT_OK) << m4;
  EXPECT_EQ(Mismatches(b, kF32, 1, {8, 3}), 0);
}

// Rank 0 damages the first file (flips a data byte, or cuts it short); every rank must fail
// with a message naming the tensor, the box and the file.
void Damage(bool truncate) {
  const std::string path = Dir(truncate ? "truncated" : "corrupt");
  WEFT_OK_OR_FAIL(SaveSmall(path, 2, 1));
  const std::string file = path + "/rank-00000.safetensors";
  if (TheWorld().rank == 0) {
    struct stat st;
    ASSERT_EQ(stat(file.c_str(), &st), 0);
    if (truncate) {
      ASSERT_EQ(::truncate(file.c_str(), st.st_size - 5), 0);
    } else {
      FILE* f = std::fopen(file.c_str(), "r+b");
      ASSERT_NE(f, nullptr);
      std::fseek(f, st.st_size - 2, SEEK_SET);
      const int c = std::fgetc(f);
      std::fseek(f, st.st_size - 2, SEEK_SET);
      std::fputc(c ^ 0x40, f);
      std::fclose(f);
    }
  }
  Barrier();
  auto [s, m] = LoadSmall(path, "a");
  EXPECT_EQ(s, WEFT_ERR_SYSTEM) << m;
  EXPECT_NE(m.find("tensor a, box [0:"), std::string::npos) << m;
  EXPECT_NE(m.find("rank-00000.safetensors"), std::string::npos) << m;
  EXPECT_NE(m.find(truncate ? "truncated" : "crc32c mismatch"), std::string::npos) << m;
}

TEST(Errors, CorruptFileNamesTensorBoxAndFile) { Damage(false); }
TEST(Errors, TruncatedFileNamesTensorBoxAndFile) { Damage(true); }

TEST(Errors, ExistingPathAndAtomicOverwrite) {
  const std::string path = Dir("overwrite");
  WEFT_OK_OR_FAIL(SaveSmall(path, 3, 1));
  EXPECT_EQ(SaveSmall(path, 4, 0), WEFT_ERR_INVALID_USAGE);
  Block b;
  EXPECT_EQ(LoadSmall(path, "a", kF32, 8, &b).first, WEFT_OK);
  EXPECT_EQ(Mismatches(b, kF32, 3, {8, 3}), 0) << "a refused save must leave the old one";
  WEFT_OK_OR_FAIL(SaveSmall(path, 5, 1));
  EXPECT_EQ(LoadSmall(path, "a", kF32, 8, &b).first, WEFT_OK);
  EXPECT_EQ(Mismatches(b, kF32, 5, {8, 3}), 0);
}

TEST(Errors, BadArguments) {
  Small s(4);
  weft_context_t* ctx = TheWorld().ctx;
  const std::string path = Dir("args");
  const char* names[] = {"a", "a"};
  const weft_layout_t* ls[] = {s.layout.l, s.layout.l};
  const DLTensor* ts[] = {&s.block.tensor, &s.block.tensor};
  auto expect = [](weft_status_t got, weft_status_t want, const char* text) {
    EXPECT_EQ(got, want) << text;
    EXPECT_NE(std::string(weft_last_error()).find(text), std::string::npos) << weft_last_error();
  };
  expect(weft_checkpoint_save(nullptr, path.c_str(), 1, names, ls, ts, nullptr, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "ctx");
  expect(weft_checkpoint_save(ctx, nullptr, 1, names, ls, ts, nullptr, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "path is NULL");
  expect(weft_checkpoint_save(ctx, path.c_str(), -1, names, ls, ts, nullptr, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "n is -1");
  expect(weft_checkpoint_save(ctx, path.c_str(), 1, nullptr, ls, ts, nullptr, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "names is NULL");
  expect(weft_checkpoint_save(ctx, path.c_str(), 2, names, ls, ts, nullptr, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "names[1] (a) appears twice");
  weft_checkpoint_save_options_t bad = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
  bad.struct_size = 4;
  expect(weft_checkpoint_save(ctx, path.c_str(), 1, names, ls, ts, &bad, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "opts->struct_size is 4");
  DLTensor wrong = s.block.tensor;
  wrong.dtype = DLDataType{kDLInt, 32, 1};
  const DLTensor* wts[] = {&wrong};
  expect(weft_checkpoint_save(ctx, path.c_str(), 1, names, ls, wts, nullptr, nullptr),
         WEFT_ERR_INVALID_ARGUMENT, "tensors[0]->dtype is int32");
  DLTensor* lts[] = {&s.block.tensor};
  expect(weft_checkpoint_load(ctx, (path + "_none").c_str(), 1, names, ls, lts, nullptr),
         WEFT_ERR_SYSTEM, "index.json");
  weft_checkpoint_t* c = nullptr;
  expect(weft_checkpoint_open(nullptr, &c), WEFT_ERR_INVALID_ARGUMENT, "path is NULL");
  expect(weft_checkpoint_num_tensors(nullptr, nullptr), WEFT_ERR_INVALID_ARGUMENT, "ckpt");
}

// One rank's bad argument: every rank fails (and none hangs), with that rank's message.
TEST(Errors, OneRankBadArgumentFailsEveryRank) {
  Small s(4);
  const std::string path = Dir("onerank");
  const char* names[] = {TheWorld().rank == TheWorld().size - 1 ? "" : "a"};
  const weft_layout_t* ls[] = {s.layout.l};
  const DLTensor* ts[] = {&s.block.tensor};
  const weft_status_t st =
      weft_checkpoint_save(TheWorld().ctx, path.c_str(), 1, names, ls, ts, nullptr, nullptr);
  EXPECT_EQ(st, WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(weft_last_error()).find("names[0] is empty"), std::string::npos)
      << weft_last_error();
}

}  // namespace
}  // namespace ckpt_test
