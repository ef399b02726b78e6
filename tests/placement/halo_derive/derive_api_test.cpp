// weft_halo_derive_windows (SPEC §4.5) through the C ABI on abstract meshes: every mesh
// position gets the window of the piece it holds (replicas along other mesh dims alike), output
// splits and extents match the brute-force reference, and bad input is rejected by name.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "tests/placement/halo_derive/reference.hpp"
#include "weft/weft.h"

namespace {

namespace ref = weft_test::derive_ref;

using MeshHandle = std::unique_ptr<weft_mesh_t, weft_status_t (*)(weft_mesh_t*)>;
using LayoutHandle = std::unique_ptr<weft_layout_t, weft_status_t (*)(weft_layout_t*)>;

MeshHandle MakeMesh(std::vector<int64_t> shape) {
  weft_mesh_t* mesh = nullptr;
  EXPECT_EQ(weft_mesh_create(nullptr, int32_t(shape.size()), shape.data(), nullptr, &mesh), WEFT_OK)
      << weft_last_error();
  return MeshHandle(mesh, weft_mesh_destroy);
}

// A float32 layout; `splits` (per tensor dim, empty = chunk) makes it ragged.
LayoutHandle MakeLayout(const weft_mesh_t* mesh, std::vector<int64_t> shape,
                        std::vector<weft_placement_t> placements,
                        std::vector<std::vector<int64_t>> splits = {}) {
  const DLDataType f32 = {kDLFloat, 32, 1};
  weft_layout_t* layout = nullptr;
  if (splits.empty()) {
    EXPECT_EQ(weft_layout_create(mesh, int32_t(shape.size()), shape.data(), f32, placements.data(),
                                 &layout),
              WEFT_OK)
        << weft_last_error();
  } else {
    std::vector<const int64_t*> sizes;
    std::vector<int64_t> counts;
    for (const auto& s : splits) {
      sizes.push_back(s.empty() ? nullptr : s.data());
      counts.push_back(int64_t(s.size()));
    }
    EXPECT_EQ(weft_layout_create_ragged(mesh, int32_t(shape.size()), shape.data(), f32,
                                        placements.data(), sizes.data(), counts.data(), &layout),
              WEFT_OK)
        << weft_last_error();
  }
  return LayoutHandle(layout, weft_layout_destroy);
}

weft_window_op_t ToC(const ref::Op& o) {
  weft_window_op_t op = WEFT_WINDOW_OP_INIT;
  op.kind = o.kind;
  op.kernel = o.kernel;
  op.stride = o.stride;
  op.dilation = o.dilation;
  op.pad_lo = o.pad_lo;
  op.pad_hi = o.pad_hi;
  op.out_extent = o.out_extent;
  return op;
}

// One operator of each kind, with strides, dilations, uneven padding and even kernels.
std::vector<ref::Op> SomeOps() {
  return {{ref::kConv, 3, 1, 1, 1, 1, 0},          {ref::kConv, 4, 2, 2, 3, 0, 0},
          {ref::kPool, 2, 2, 1, 0, 0, 0},          {ref::kPool, 3, 3, 1, 1, 2, 0},
          {ref::kConvTranspose, 4, 2, 1, 1, 0, 0}, {ref::kConvTranspose, 3, 3, 2, 2, 1, 0},
          {ref::kNearest, 1, 1, 1, 0, 0, 7},       {ref::kNearest, 1, 1, 1, 0, 0, 29},
          {ref::kLinear, 1, 1, 1, 0, 0, 26},       {ref::kLinear, 1, 1, 1, 0, 0, 5},
          {ref::kAttention, 5, 1, 1, 0, 0, 0}};
}

// Checks every mesh position's window (position pos holds piece piece_of(pos)), the output
// split and N_out against the reference for `sizes`, the dim's piece sizes.
template <class PieceOf>
void ExpectMatches(const weft_layout_t* layout, int32_t dim, int64_t mesh_size,
                   const std::vector<int64_t>& sizes, PieceOf piece_of) {
  int64_t n = 0;
  for (int64_t s : sizes) n += s;
  const std::vector<ref::Range> owned = ref::FromSizes(sizes);
  for (const ref::Op& o : SomeOps()) {
    const ref::Expected want = ref::Reference(n, owned, o);
    ASSERT_TRUE(want.valid) << ref::Describe(n, owned, o);
    const weft_window_op_t op = ToC(o);
    std::vector<int64_t> windows(size_t(2 * mesh_size), -999), out_sizes(sizes.size(), -999);
    int64_t out_extent = -999;
    ASSERT_EQ(weft_halo_derive_windows(layout, dim, &op, windows.data(), int32_t(sizes.size()),
                                       out_sizes.data(), &out_extent),
              WEFT_OK)
        << weft_last_error();
    const std::string what = ref::Describe(n, owned, o);
    EXPECT_EQ(out_extent, want.out_extent) << what;
    EXPECT_EQ(out_sizes, want.out_sizes) << what;
    for (int64_t pos = 0; pos < mesh_size; ++pos) {
      const ref::Range w = want.windows[size_t(piece_of(pos))];
      EXPECT_EQ(windows[size_t(2 * pos)], w.begin) << what << " position " << pos;
      EXPECT_EQ(windows[size_t(2 * pos + 1)], w.end) << what << " position " << pos;
    }
  }
}

TEST(HaloDeriveApiTest, ReplicasAlongTheOtherMeshDimGetEqualWindows) {
  // Mesh [2, 3]: mesh dim 1 shards tensor dim 0 (13 rows: chunk 5, 5, 3); mesh dim 0 replicates.
  const MeshHandle mesh = MakeMesh({2, 3});
  const LayoutHandle layout =
      MakeLayout(mesh.get(), {13, 4}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(0)});
  ExpectMatches(layout.get(), 0, 6, {5, 5, 3}, [](int64_t pos) { return pos % 3; });
}

TEST(HaloDeriveApiTest, OuterMeshDimSharding) {
  // Mesh [3, 2]: mesh dim 0 shards tensor dim 1 (11 rows: chunk 4, 4, 3).
  const MeshHandle mesh = MakeMesh({3, 2});
  const LayoutHandle layout =
      MakeLayout(mesh.get(), {2, 11}, {WEFT_PLACEMENT_SHARD(1), WEFT_PLACEMENT_REPLICATE});
  ExpectMatches(layout.get(), 1, 6, {4, 4, 3}, [](int64_t pos) { return pos / 2; });
}

TEST(HaloDeriveApiTest, NestedShardingUsesRowMajorPieceIndex) {
  // SPEC §2.2: 5 rows on a 2×2 mesh as [S0, S0] → 2, 1, 1, 1 (flat chunk would be 2, 2, 1, 0);
  // piece = 2·c0 + c2. The middle mesh dim replicates.
  const MeshHandle mesh = MakeMesh({2, 2, 2});
  const LayoutHandle layout =
      MakeLayout(mesh.get(), {5},
                 {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(0)});
  int64_t sizes[4] = {0, 0, 0, 0}, count = 0;
  ASSERT_EQ(weft_layout_split_sizes(layout.get(), 0, sizes, 4, &count), WEFT_OK);
  ASSERT_EQ(count, 4);
  ASSERT_EQ(std::vector<int64_t>(sizes, sizes + 4), (std::vector<int64_t>{2, 1, 1, 1}));
  ExpectMatches(layout.get(), 0, 8, {2, 1, 1, 1},
                [](int64_t pos) { return 2 * (pos / 4) + pos % 2; });
}

TEST(HaloDeriveApiTest, RaggedSplitWithEmptyAndOneRowPieces) {
  const MeshHandle mesh = MakeMesh({2, 5});
  const std::vector<int64_t> split = {0, 9, 1, 0, 6};
  const LayoutHandle layout = MakeLayout(
      mesh.get(), {3, 16}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(1)}, {{}, split});
  ExpectMatches(layout.get(), 1, 10, split, [](int64_t pos) { return pos % 5; });
}

TEST(HaloDeriveApiTest, UnshardedDimIsOnePieceEverywhere) {
  const MeshHandle mesh = MakeMesh({2, 3});
  const LayoutHandle layout =
      MakeLayout(mesh.get(), {13, 9}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(0)});
  ExpectMatches(layout.get(), 1, 6, {9}, [](int64_t) { return 0; });
}

TEST(HaloDeriveApiTest, EveryOutputMayBeNull) {
  const MeshHandle mesh = MakeMesh({4});
  const LayoutHandle layout = MakeLayout(mesh.get(), {10}, {WEFT_PLACEMENT_SHARD(0)});
  const weft_window_op_t op = WEFT_WINDOW_OP_INIT;
  EXPECT_EQ(weft_halo_derive_windows(layout.get(), 0, &op, nullptr, 0, nullptr, nullptr), WEFT_OK)
      << weft_last_error();
  int64_t out_extent = 0;  // npieces only sizes out_sizes: ignored when that is NULL
  EXPECT_EQ(weft_halo_derive_windows(layout.get(), 0, &op, nullptr, 7, nullptr, &out_extent),
            WEFT_OK);
  EXPECT_EQ(out_extent, 10);
}

TEST(HaloDeriveApiTest, LongerStructWithZeroTailIsAccepted) {
  const MeshHandle mesh = MakeMesh({2});
  const LayoutHandle layout = MakeLayout(mesh.get(), {10}, {WEFT_PLACEMENT_SHARD(0)});
  struct {
    weft_window_op_t op;
    int64_t tail;
  } longer;
  std::memset(&longer, 0, sizeof(longer));
  longer.op = WEFT_WINDOW_OP_INIT;
  longer.op.struct_size = sizeof(longer);
  int64_t out_sizes[2] = {0, 0};
  EXPECT_EQ(weft_halo_derive_windows(layout.get(), 0, &longer.op, nullptr, 2, out_sizes, nullptr),
            WEFT_OK)
      << weft_last_error();
  EXPECT_EQ(out_sizes[1], 5);
  longer.tail = 1;
  EXPECT_EQ(weft_halo_derive_windows(layout.get(), 0, &longer.op, nullptr, 2, out_sizes, nullptr),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(weft_last_error()).find("op->struct_size"), std::string::npos);
}

// Bad input: mesh [2, 3], tensor [13, 4] sharded on dim 0 by mesh dim 1 (3 pieces), and a
// tensor with an empty dim.
struct BadEnv {
  MeshHandle mesh = MakeMesh({2, 3});
  LayoutHandle layout =
      MakeLayout(mesh.get(), {13, 4}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(0)});
  LayoutHandle empty_dim =
      MakeLayout(mesh.get(), {0, 4}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(0)});
};

struct BadCall {
  const weft_layout_t* layout;
  int32_t dim = 0;
  weft_window_op_t op = WEFT_WINDOW_OP_INIT;
  bool null_op = false;
  int32_t npieces = 3;
};

struct BadCase {
  std::string label;
  std::string arg;    // the argument the message must name
  const char* value;  // and, when not null, this text
  std::function<void(BadEnv&, BadCall&)> edit;
};

std::vector<BadCase> BadCases() {
  using E = BadEnv;
  using C = BadCall;
  return {
      {"NullLayout", "layout", "NULL", [](E&, C& c) { c.layout = nullptr; }},
      {"DimTooLarge", "dim", "2", [](E&, C& c) { c.dim = 2; }},
      {"DimNegative", "dim", "-1", [](E&, C& c) { c.dim = -1; }},
      {"DimWithNoRows", "dim", "extent is 0", [](E& e, C& c) { c.layout = e.empty_dim.get(); }},
      {"NullOp", "op", "NULL", [](E&, C& c) { c.null_op = true; }},
      {"StructSizeZero", "op->struct_size", "0", [](E&, C& c) { c.op.struct_size = 0; }},
      {"StructSizeShort", "op->struct_size", "8", [](E&, C& c) { c.op.struct_size = 8; }},
      {"UnknownKind", "op->kind", "7", [](E&, C& c) { c.op.kind = 7; }},
      {"NegativeKind", "op->kind", "-1", [](E&, C& c) { c.op.kind = -1; }},
      {"KernelZero", "op->kernel", "0", [](E&, C& c) { c.op.kernel = 0; }},
      {"StrideZero", "op->stride", "0", [](E&, C& c) { c.op.stride = 0; }},
      {"DilationZero", "op->dilation", "0", [](E&, C& c) { c.op.dilation = 0; }},
      {"NegativePadLo", "op->pad_lo", "-1", [](E&, C& c) { c.op.pad_lo = -1; }},
      {"NegativePadHi", "op->pad_hi", "-3", [](E&, C& c) { c.op.pad_hi = -3; }},
      {"NoOutputRows", "op", "no output rows",
       [](E&, C& c) {
         c.op.kernel = 8;
         c.op.dilation = 2;
       }},
      {"NpiecesTooFew", "npieces", "2", [](E&, C& c) { c.npieces = 2; }},
      {"NpiecesTooMany", "npieces", "6", [](E&, C& c) { c.npieces = 6; }},
      {"EvenAttentionKernel", "op->kernel", "4",
       [](E&, C& c) {
         c.op.kind = WEFT_WINDOW_NEIGHBORHOOD_ATTENTION;
         c.op.kernel = 4;
       }},
      {"AttentionKernelAboveExtent", "op->kernel", "15",
       [](E&, C& c) {
         c.op.kind = WEFT_WINDOW_NEIGHBORHOOD_ATTENTION;
         c.op.kernel = 15;
       }},
      {"AttentionWithDilation", "op->dilation", "2",
       [](E&, C& c) {
         c.op.kind = WEFT_WINDOW_NEIGHBORHOOD_ATTENTION;
         c.op.kernel = 3;
         c.op.dilation = 2;
       }},
      {"InterpOutExtentZero", "op->out_extent", "0",
       [](E&, C& c) { c.op.kind = WEFT_WINDOW_INTERP_LINEAR; }},
      {"InterpNegativeOutExtent", "op->out_extent", "-5",
       [](E&, C& c) {
         c.op.kind = WEFT_WINDOW_INTERP_NEAREST;
         c.op.out_extent = -5;
       }},
  };
}

class HaloDeriveApiBadInputTest : public testing::TestWithParam<BadCase> {};

TEST_P(HaloDeriveApiBadInputTest, RejectedByNameWithOutputsUntouched) {
  BadEnv env;
  BadCall call{env.layout.get()};
  GetParam().edit(env, call);
  std::vector<int64_t> windows(12, -777), out_sizes(6, -777);
  int64_t out_extent = -777;
  weft_test::PrimeLastError();
  EXPECT_EQ(weft_halo_derive_windows(call.layout, call.dim, call.null_op ? nullptr : &call.op,
                                     windows.data(), call.npieces, out_sizes.data(), &out_extent),
            WEFT_ERR_INVALID_ARGUMENT);
  const std::string msg = weft_last_error();
  EXPECT_EQ(msg.rfind("weft_halo_derive_windows: ", 0), 0u) << msg;
  EXPECT_TRUE(weft_test::NamesArg(msg, GetParam().arg))
      << msg << " does not name " << GetParam().arg;
  if (GetParam().value != nullptr) {
    EXPECT_NE(msg.find(GetParam().value), std::string::npos) << msg;
  }
  EXPECT_EQ(windows, std::vector<int64_t>(12, -777));
  EXPECT_EQ(out_sizes, std::vector<int64_t>(6, -777));
  EXPECT_EQ(out_extent, -777);
}

INSTANTIATE_TEST_SUITE_P(Cases, HaloDeriveApiBadInputTest, testing::ValuesIn(BadCases()),
                         [](const testing::TestParamInfo<BadCase>& info) {
                           return info.param.label;
                         });

}  // namespace
