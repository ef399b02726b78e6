// DLTensor byte offsets and strides that would reach past the address space (SPEC §6.2, §10):
// refused with WEFT_ERR_INVALID_ARGUMENT naming byte_offset (or the stride) and its value,
// before any pointer is formed from them, by the collectives and by plan executions; offsets
// inside a buffer still work. Under ASan and UBSan nothing is reported.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::ExpectInvalid;

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr uint64_t kTwo62 = uint64_t{1} << 62;

weft_status_t CreateSelf(const char* backend, weft_context_t** ctx) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = backend;
  opts.timeout_ms = 20000;
  return weft_context_create(&opts, ctx);
}

// A world of one rank on the self backend, a mesh [1] of it, a float32 [4] layout on it and a
// redistribute plan and a halo plan (one row of constant padding each side) of that layout.
class World : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(CreateSelf("self", &ctx_), WEFT_OK) << weft_last_error();
    const int64_t one[1] = {1};
    ASSERT_EQ(weft_mesh_create(ctx_, 1, one, nullptr, &mesh_), WEFT_OK);
    const weft_placement_t s0[1] = {WEFT_PLACEMENT_SHARD(0)};
    ASSERT_EQ(weft_layout_create(mesh_, 1, shape4_, kF32, s0, &layout_), WEFT_OK);
    ASSERT_EQ(weft_redistribute_plan_create(layout_, layout_, nullptr, &plan_), WEFT_OK);
    weft_halo_dim_t dim = {0,      WEFT_BOUNDARY_CONSTANT, WEFT_BOUNDARY_CONSTANT, 0, 1, 1, 1, 1,
                           nullptr};
    weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
    desc.ndims = 1;
    desc.dims = &dim;
    ASSERT_EQ(weft_halo_plan_create(layout_, &desc, nullptr, &halo_), WEFT_OK) << weft_last_error();
  }
  void TearDown() override {
    weft_plan_destroy(halo_);
    weft_plan_destroy(plan_);
    weft_layout_destroy(layout_);
    weft_mesh_destroy(mesh_);
    EXPECT_EQ(weft_context_destroy(ctx_), WEFT_OK) << weft_last_error();
  }

  weft_context_t* ctx_ = nullptr;
  weft_mesh_t* mesh_ = nullptr;
  weft_layout_t* layout_ = nullptr;
  weft_plan_t *plan_ = nullptr, *halo_ = nullptr;
  float in_data_[4] = {1, 2, 3, 4}, out_data_[4] = {}, padded_data_[6] = {};
  int64_t shape4_[1] = {4}, shape6_[1] = {6};
  DLTensor in_{in_data_, {kDLCPU, 0}, 1, kF32, shape4_, nullptr, 0};
  DLTensor out_{out_data_, {kDLCPU, 0}, 1, kF32, shape4_, nullptr, 0};
  DLTensor padded_{padded_data_, {kDLCPU, 0}, 1, kF32, shape6_, nullptr, 0};
};

// 2^62 does not wrap with any user address, but ends past every user address space; the
// others wrap around it.
const uint64_t kBadOffsets[] = {kTwo62, UINT64_MAX - 7, UINT64_MAX};

using ByteRange = World;

TEST_F(ByteRange, CollectiveBuffersPastTheAddressSpaceAreRejected) {
  for (uint64_t offset : kBadOffsets) {
    SCOPED_TRACE(offset);
    DLTensor send = in_, recv = out_;
    send.byte_offset = offset;
    ExpectInvalid(
        weft_allreduce(ctx_, nullptr, 0, &send, &out_, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr),
        "weft_allreduce", "send->byte_offset", std::to_string(offset));
    recv.byte_offset = offset;
    ExpectInvalid(weft_allgather(ctx_, nullptr, 0, &in_, &recv, nullptr, nullptr, nullptr),
                  "weft_allgather", "recv->byte_offset", std::to_string(offset));
    ExpectInvalid(weft_broadcast(ctx_, nullptr, 0, &recv, 0, nullptr, nullptr, nullptr),
                  "weft_broadcast", "buf->byte_offset", std::to_string(offset));
  }
  EXPECT_EQ(std::vector<float>(out_data_, out_data_ + 4), std::vector<float>(4, 0.0f));
}

TEST_F(ByteRange, PlanBuffersPastTheAddressSpaceAreRejected) {
  for (uint64_t offset : kBadOffsets) {
    SCOPED_TRACE(offset);
    DLTensor in = in_, padded = padded_;
    in.byte_offset = offset;
    ExpectInvalid(weft_plan_execute(plan_, &in, &out_, nullptr, nullptr, nullptr),
                  "weft_plan_execute", "in->byte_offset", std::to_string(offset));
    ExpectInvalid(weft_halo_exchange(halo_, &in, &padded_, nullptr, nullptr, nullptr),
                  "weft_halo_exchange", "local->byte_offset", std::to_string(offset));
    padded.byte_offset = offset;
    ExpectInvalid(weft_halo_exchange_inplace(halo_, &padded, nullptr, nullptr, nullptr),
                  "weft_halo_exchange_inplace", "padded->byte_offset", std::to_string(offset));
  }
}

// A stride whose reach overflows 64 bits, and one that fits in 64 bits but not in the address
// space from this buffer.
TEST_F(ByteRange, StridesThatReachTooFarAreRejected) {
  int64_t overflow[1] = {int64_t{1} << 62}, far[1] = {int64_t{1} << 58};
  DLTensor in = in_;
  in.strides = overflow;
  ExpectInvalid(weft_plan_execute(plan_, &in, &out_, nullptr, nullptr, nullptr),
                "weft_plan_execute", "in->strides[0]", "4611686018427387904");
  in.strides = far;
  ExpectInvalid(weft_plan_execute(plan_, &in, &out_, nullptr, nullptr, nullptr),
                "weft_plan_execute", "in->byte_offset", "0");
  DLTensor padded = padded_;
  padded.strides = overflow;
  ExpectInvalid(weft_halo_exchange(halo_, &in_, &padded, nullptr, nullptr, nullptr),
                "weft_halo_exchange", "padded->strides[0]", "4611686018427387904");
}

TEST_F(ByteRange, InRangeOffsetsStillWork) {
  float data[8] = {0, 0, 1, 2, 3, 4, 0, 0};
  DLTensor in = in_;
  in.data = data;
  in.byte_offset = 2 * sizeof(float);
  ASSERT_EQ(weft_plan_execute(plan_, &in, &out_, nullptr, nullptr, nullptr), WEFT_OK)
      << weft_last_error();
  EXPECT_EQ(std::vector<float>(out_data_, out_data_ + 4), (std::vector<float>{1, 2, 3, 4}));
  DLTensor recv = out_;
  recv.shape = shape4_;
  ASSERT_EQ(
      weft_allreduce(ctx_, nullptr, 0, &in, &recv, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr),
      WEFT_OK)
      << weft_last_error();
  // An empty tensor touches nothing: its byte_offset is not looked at.
  int64_t zero[1] = {0};
  DLTensor empty{nullptr, {kDLCPU, 0}, 1, kF32, zero, nullptr, kTwo62};
  EXPECT_EQ(
      weft_allreduce(ctx_, nullptr, 0, &empty, &empty, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr),
      WEFT_OK)
      << weft_last_error();
}

}  // namespace
