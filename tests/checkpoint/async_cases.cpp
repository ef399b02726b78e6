// Asynchronous saves: the call returns once this rank's blocks are staged (the caller may
// overwrite its tensors at once), the work handle completes when the checkpoint is durable,
// and a second save reuses the staging and replaces the first atomically.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "tests/checkpoint/harness.hpp"

namespace ckpt_test {
namespace {

using weft_test::TheWorld;

constexpr DLDataType kF32{kDLFloat, 32, 1}, kI64{kDLInt, 64, 1};

struct Two {
  weft_test::Mesh mesh{{TheWorld().size}};
  weft_test::Layout a{mesh, {64, 5}, kF32, {"S0"}};
  weft_test::Layout r{mesh, {10, 3}, kI64, {"R"}};
  Block ba = MakeBlock(a.l, kF32, TheWorld().rank);
  Block br = MakeBlock(r.l, kI64, TheWorld().rank);
};

void SaveAsyncAndScribble(const std::string& path, int gen) {
  Two t;
  Fill(t.ba, kF32, gen, {64, 5});
  Fill(t.br, kI64, gen + 1, {10, 3});
  const char* names[] = {"a", "r"};
  const weft_layout_t* ls[] = {t.a.l, t.r.l};
  const DLTensor* ts[] = {&t.ba.tensor, &t.br.tensor};
  weft_checkpoint_save_options_t o = WEFT_CHECKPOINT_SAVE_OPTIONS_INIT;
  o.overwrite = 1;
  weft_work_t* work = nullptr;
  WEFT_OK_OR_FAIL(weft_checkpoint_save(TheWorld().ctx, path.c_str(), 2, names, ls, ts, &o, &work));
  ASSERT_NE(work, nullptr);
  // The blocks were staged: the caller may reuse its memory while the files are written.
  std::memset(t.ba.bytes.data(), 0xAB, t.ba.bytes.size());
  std::memset(t.br.bytes.data(), 0xAB, t.br.bytes.size());
  WEFT_OK_OR_FAIL(weft_work_wait(work, -1));
  int32_t done = 0;
  WEFT_OK_OR_FAIL(weft_work_test(work, &done));
  EXPECT_EQ(done, 1);
  WEFT_OK_OR_FAIL(weft_work_release(work));
}

void ExpectGeneration(const std::string& path, int gen) {
  Two t;
  const char* names[] = {"a", "r"};
  const weft_layout_t* ls[] = {t.a.l, t.r.l};
  DLTensor* ts[] = {&t.ba.tensor, &t.br.tensor};
  WEFT_OK_OR_FAIL(weft_checkpoint_load(TheWorld().ctx, path.c_str(), 2, names, ls, ts, nullptr));
  EXPECT_EQ(Mismatches(t.ba, kF32, gen, {64, 5}), 0);
  EXPECT_EQ(Mismatches(t.br, kI64, gen + 1, {10, 3}), 0);
}

TEST(Async, DurableWhenTheWorkCompletes) {
  const std::string path = DataDir() + "/async" + std::to_string(TheWorld().size);
  SaveAsyncAndScribble(path, 7);
  ExpectGeneration(path, 7);
  SaveAsyncAndScribble(path, 8);  // reuses the staging, replaces the first atomically
  ExpectGeneration(path, 8);
}

}  // namespace
}  // namespace ckpt_test
