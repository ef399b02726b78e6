// Every invalid argument of every layout call of the C ABI (SPEC §2.2, §2.3, §6.1, §10): the
// call returns WEFT_ERR_INVALID_ARGUMENT, weft_last_error() names the function and the argument,
// the outputs are untouched, and nothing aborts.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::Env;
using weft_test::Outs;
using Row = weft_test::Case<Env>;

const int64_t kShape33[33] = {};

weft_status_t CreateLayout(Env& e, Outs& o, std::vector<int64_t> shape, DLDataType dtype,
                           std::vector<weft_placement_t> ps) {
  return weft_layout_create(e.mesh, static_cast<int32_t>(shape.size()), shape.data(), dtype,
                            ps.data(), &o.layout);
}

// weft_layout_create_ragged of float32 [6, 10] as [S(0), R] with explicit sizes for dim 0.
weft_status_t CreateRagged(Env& e, Outs& o, std::vector<int64_t> rows, int64_t count,
                           std::vector<int64_t> cols = {}) {
  const weft_placement_t ps[2] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_REPLICATE};
  const int64_t* sizes[2] = {rows.data(), cols.empty() ? nullptr : cols.data()};
  const int64_t counts[2] = {count, static_cast<int64_t>(cols.size())};
  return weft_layout_create_ragged(e.mesh, 2, e.global, e.f32, ps, sizes, counts, &o.layout);
}

constexpr weft_placement_t kR = WEFT_PLACEMENT_REPLICATE;
constexpr weft_placement_t S(int32_t d) { return WEFT_PLACEMENT_SHARD(d); }
constexpr weft_placement_t P(int32_t op) { return WEFT_PLACEMENT_PARTIAL(op); }
constexpr DLDataType kI32 = {kDLInt, 32, 1}, kBool = WEFT_DLPACK_BOOL, kC64 = {kDLComplex, 64, 1};

std::vector<Row> LayoutCreateCases() {
  return {
      {"LayoutCreateMeshNull", "weft_layout_create", "mesh", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_create(nullptr, 2, e.global, e.f32, e.placements, &o.layout);
       }},
      {"LayoutCreateNdimNegative", "weft_layout_create", "ndim", "-1",
       [](Env& e, Outs& o) {
         return weft_layout_create(e.mesh, -1, e.global, e.f32, e.placements, &o.layout);
       }},
      {"LayoutCreateNdimTooLarge", "weft_layout_create", "ndim", "33",
       [](Env& e, Outs& o) {
         return weft_layout_create(e.mesh, 33, kShape33, e.f32, e.placements, &o.layout);
       }},
      {"LayoutCreateShapeNull", "weft_layout_create", "global_shape", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_create(e.mesh, 2, nullptr, e.f32, e.placements, &o.layout);
       }},
      {"LayoutCreateExtentNegative", "weft_layout_create", "global_shape[1]", "-1",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, -1}, e.f32, {S(0), S(1)});
       }},
      {"LayoutCreateBytesOverflow", "weft_layout_create", "global_shape", nullptr,
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {int64_t{1} << 32, int64_t{1} << 30}, e.f32, {S(0), S(1)});
       }},
      {"LayoutCreateDtypeLanes", "weft_layout_create", "dtype", "lanes=4",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, {kDLFloat, 32, 4}, {kR, kR});
       }},
      {"LayoutCreateDtypeBits", "weft_layout_create", "dtype", "float12",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, {kDLFloat, 12, 1}, {kR, kR});
       }},
      {"LayoutCreateDtypeZeroBits", "weft_layout_create", "dtype", "float0",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, {kDLFloat, 0, 1}, {kR, kR});
       }},
      {"LayoutCreateDtypeCode", "weft_layout_create", "dtype", "code=9",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, {9, 8, 1}, {kR, kR});
       }},
  };
}

std::vector<Row> LayoutPlacementCases() {
  return {
      {"LayoutCreatePlacementsNull", "weft_layout_create", "placements", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_create(e.mesh, 2, e.global, e.f32, nullptr, &o.layout);
       }},
      {"LayoutCreateKindUnknown", "weft_layout_create", "placements[1].kind", "3",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {kR, {3, 0, 0, 0}});
       }},
      {"LayoutCreateKindNegative", "weft_layout_create", "placements[0].kind", "-1",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {{-1, 0, 0, 0}, kR});
       }},
      {"LayoutCreateReservedSet", "weft_layout_create", "placements[1].reserved", "7",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {kR, {WEFT_SHARD, 0, 0, 7}});
       }},
      {"LayoutCreateReduceOpUnknown", "weft_layout_create", "placements[1].reduce_op", "5",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {kR, P(5)});
       }},
      {"LayoutCreateReduceOpNegative", "weft_layout_create", "placements[0].reduce_op", "-1",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {P(-1), kR});
       }},
      {"LayoutCreateShardDimTooLarge", "weft_layout_create", "placements[1]", "2",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {S(0), S(2)});
       }},
      {"LayoutCreateShardDimNegative", "weft_layout_create", "placements[0]", "-1",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {S(-1), kR});
       }},
      {"LayoutCreateShardOfScalar", "weft_layout_create", "placements[0]", "0",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {}, e.f32, {S(0), kR});
       }},
      {"LayoutCreateAvgOnInt", "weft_layout_create", "placements[0]", "int32",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, kI32, {P(WEFT_REDUCE_AVG), kR});
       }},
      {"LayoutCreateAvgOnBool", "weft_layout_create", "placements[1]", "bool",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, kBool, {kR, P(WEFT_REDUCE_AVG)});
       }},
      {"LayoutCreateSumOnBool", "weft_layout_create", "placements[0]", "bool",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, kBool, {P(WEFT_REDUCE_SUM), kR});
       }},
      {"LayoutCreateProdOnBool", "weft_layout_create", "placements[0]", "bool",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, kBool, {P(WEFT_REDUCE_PROD), kR});
       }},
      {"LayoutCreateMaxOnComplex", "weft_layout_create", "placements[0]", "complex64",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, kC64, {P(WEFT_REDUCE_MAX), kR});
       }},
      {"LayoutCreatePartialOnOpaque", "weft_layout_create", "placements[0]", nullptr,
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, {kDLOpaqueHandle, 8, 1}, {P(WEFT_REDUCE_SUM), kR});
       }},
      {"LayoutCreatePartialOpsDiffer", "weft_layout_create", "placements[1]", "P(max)",
       [](Env& e, Outs& o) {
         return CreateLayout(e, o, {6, 10}, e.f32, {P(WEFT_REDUCE_SUM), P(WEFT_REDUCE_MAX)});
       }},
      {"LayoutCreateOutNull", "weft_layout_create", "layout", nullptr,
       [](Env& e, Outs&) {
         return weft_layout_create(e.mesh, 2, e.global, e.f32, e.placements, nullptr);
       }},
  };
}

std::vector<Row> LayoutRaggedCases() {
  return {
      {"RaggedMeshNull", "weft_layout_create_ragged", "mesh", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_create_ragged(nullptr, 2, e.global, e.f32, e.placements, nullptr,
                                          nullptr, &o.layout);
       }},
      {"RaggedNdimTooLarge", "weft_layout_create_ragged", "ndim", "33",
       [](Env& e, Outs& o) {
         return weft_layout_create_ragged(e.mesh, 33, kShape33, e.f32, e.placements, nullptr,
                                          nullptr, &o.layout);
       }},
      {"RaggedShapeNull", "weft_layout_create_ragged", "global_shape", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_create_ragged(e.mesh, 2, nullptr, e.f32, e.placements, nullptr, nullptr,
                                          &o.layout);
       }},
      {"RaggedPlacementsNull", "weft_layout_create_ragged", "placements", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_create_ragged(e.mesh, 2, e.global, e.f32, nullptr, nullptr, nullptr,
                                          &o.layout);
       }},
      {"RaggedCountsNull", "weft_layout_create_ragged", "split_counts", nullptr,
       [](Env& e, Outs& o) {
         const int64_t rows[2] = {1, 5};
         const int64_t* sizes[2] = {rows, nullptr};
         return weft_layout_create_ragged(e.mesh, 2, e.global, e.f32, e.placements, sizes, nullptr,
                                          &o.layout);
       }},
      {"RaggedCountNegative", "weft_layout_create_ragged", "split_counts[0]", "-1",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {1, 5}, -1);
       }},
      {"RaggedCountTooSmall", "weft_layout_create_ragged", "split_counts[0]", "1",
       [](Env& e, Outs& o) { return CreateRagged(e, o, {6}, 1); }},
      {"RaggedCountTooLarge", "weft_layout_create_ragged", "split_counts[0]", "3",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {1, 5, 0}, 3);
       }},
      // A count far beyond the array: rejected before the sizes are read or copied.
      {"RaggedCountHuge", "weft_layout_create_ragged", "split_counts[0]", "1073741824",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {1, 5}, int64_t{1} << 30);
       }},
      {"RaggedSizeNegative", "weft_layout_create_ragged", "split_sizes[0][1]", "-1",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {1, -1}, 2);
       }},
      {"RaggedSizesShort", "weft_layout_create_ragged", "split_sizes[0]", "5",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {2, 3}, 2);
       }},
      {"RaggedSizesOverrun", "weft_layout_create_ragged", "split_sizes[0][1]", "5",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {4, 5}, 2);
       }},
      {"RaggedUnshardedDimNotWhole", "weft_layout_create_ragged", "split_sizes[1]", "9",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {1, 5}, 2, {9});
       }},
      {"RaggedUnshardedDimSplit", "weft_layout_create_ragged", "split_counts[1]", "2",
       [](Env& e, Outs& o) {
         return CreateRagged(e, o, {1, 5}, 2, {5, 5});
       }},
      {"RaggedOutNull", "weft_layout_create_ragged", "layout", nullptr,
       [](Env& e, Outs&) {
         return weft_layout_create_ragged(e.mesh, 2, e.global, e.f32, e.placements, nullptr,
                                          nullptr, nullptr);
       }},
  };
}

std::vector<Row> LayoutQueryCases() {
  return {
      {"LocalShapeLayoutNull", "weft_layout_local_shape", "layout", nullptr,
       [](Env&, Outs& o) {
         return weft_layout_local_shape(nullptr, 0, o.i64.data(), o.i64.data() + 4);
       }},
      {"LocalShapeRankNegative", "weft_layout_local_shape", "rank", "-1",
       [](Env& e, Outs& o) {
         return weft_layout_local_shape(e.layout, -1, o.i64.data(), o.i64.data() + 4);
       }},
      {"LocalShapeShapeNull", "weft_layout_local_shape", "shape", nullptr,
       [](Env& e, Outs& o) { return weft_layout_local_shape(e.layout, 0, nullptr, o.i64.data()); }},
      {"LayoutNdimLayoutNull", "weft_layout_ndim", "layout", nullptr,
       [](Env&, Outs& o) { return weft_layout_ndim(nullptr, &o.i32[0]); }},
      {"LayoutNdimOutNull", "weft_layout_ndim", "ndim", nullptr,
       [](Env& e, Outs&) { return weft_layout_ndim(e.layout, nullptr); }},
      {"GlobalShapeLayoutNull", "weft_layout_global_shape", "layout", nullptr,
       [](Env&, Outs& o) { return weft_layout_global_shape(nullptr, o.i64.data()); }},
      {"GlobalShapeOutNull", "weft_layout_global_shape", "shape", nullptr,
       [](Env& e, Outs&) { return weft_layout_global_shape(e.layout, nullptr); }},
      {"DtypeLayoutNull", "weft_layout_dtype", "layout", nullptr,
       [](Env&, Outs& o) { return weft_layout_dtype(nullptr, &o.dtype); }},
      {"DtypeOutNull", "weft_layout_dtype", "dtype", nullptr,
       [](Env& e, Outs&) { return weft_layout_dtype(e.layout, nullptr); }},
      {"PlacementsLayoutNull", "weft_layout_placements", "layout", nullptr,
       [](Env&, Outs& o) { return weft_layout_placements(nullptr, o.placements.data()); }},
      {"PlacementsOutNull", "weft_layout_placements", "placements", nullptr,
       [](Env& e, Outs&) { return weft_layout_placements(e.layout, nullptr); }},
      {"SplitSizesLayoutNull", "weft_layout_split_sizes", "layout", nullptr,
       [](Env&, Outs& o) {
         return weft_layout_split_sizes(nullptr, 0, o.i64.data(), 8, &o.count);
       }},
      {"SplitSizesDimNegative", "weft_layout_split_sizes", "dim", "-1",
       [](Env& e, Outs& o) {
         return weft_layout_split_sizes(e.layout, -1, o.i64.data(), 8, &o.count);
       }},
      {"SplitSizesDimTooLarge", "weft_layout_split_sizes", "dim", "2",
       [](Env& e, Outs& o) {
         return weft_layout_split_sizes(e.layout, 2, o.i64.data(), 8, &o.count);
       }},
      {"SplitSizesCountNull", "weft_layout_split_sizes", "count", nullptr,
       [](Env& e, Outs& o) {
         return weft_layout_split_sizes(e.layout, 0, o.i64.data(), 8, nullptr);
       }},
      {"SplitSizesSizesNull", "weft_layout_split_sizes", "sizes", nullptr,
       [](Env& e, Outs& o) { return weft_layout_split_sizes(e.layout, 0, nullptr, 8, &o.count); }},
      {"SplitSizesLenTooSmall", "weft_layout_split_sizes", "len", "1",
       [](Env& e, Outs& o) {
         return weft_layout_split_sizes(e.layout, 0, o.i64.data(), 1, &o.count);
       }},
      {"SplitSizesLenNegative", "weft_layout_split_sizes", "len", "-8",
       [](Env& e, Outs& o) {
         return weft_layout_split_sizes(e.layout, 0, o.i64.data(), -8, &o.count);
       }},
      {"LayoutEqualANull", "weft_layout_equal", "a", nullptr,
       [](Env& e, Outs& o) { return weft_layout_equal(nullptr, e.layout, &o.i32[0]); }},
      {"LayoutEqualBNull", "weft_layout_equal", "b", nullptr,
       [](Env& e, Outs& o) { return weft_layout_equal(e.layout, nullptr, &o.i32[0]); }},
      {"LayoutEqualOutNull", "weft_layout_equal", "equal", nullptr,
       [](Env& e, Outs&) { return weft_layout_equal(e.layout, e.layout, nullptr); }},
      {"LayoutDescribeLayoutNull", "weft_layout_describe", "layout", nullptr,
       [](Env&, Outs& o) { return weft_layout_describe(nullptr, o.buf.data(), 256, &o.needed); }},
      {"LayoutDescribeNeededNull", "weft_layout_describe", "needed", nullptr,
       [](Env& e, Outs& o) { return weft_layout_describe(e.layout, o.buf.data(), 256, nullptr); }},
      {"LayoutDescribeBufNull", "weft_layout_describe", "buf", nullptr,
       [](Env& e, Outs& o) { return weft_layout_describe(e.layout, nullptr, 256, &o.needed); }},
      {"LayoutDescribeLenTooSmall", "weft_layout_describe", "len", "10",
       [](Env& e, Outs& o) { return weft_layout_describe(e.layout, o.buf.data(), 10, &o.needed); }},
  };
}

std::vector<Row> AllCases() {
  std::vector<Row> all;
  for (auto group :
       {LayoutCreateCases, LayoutPlacementCases, LayoutRaggedCases, LayoutQueryCases}) {
    std::vector<Row> cases = group();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

class LayoutBadInput : public testing::TestWithParam<Row> {};

TEST_P(LayoutBadInput, IsRejectedNamingTheArgument) {
  Env env;
  weft_test::ExpectRejected(GetParam(), env);
}

INSTANTIATE_TEST_SUITE_P(Api, LayoutBadInput, testing::ValuesIn(AllCases()),
                         weft_test::CaseName<Env>);

}  // namespace
