// Every invalid argument of every mesh call of the C ABI (SPEC §2.1, §6.1, §10): the call
// returns WEFT_ERR_INVALID_ARGUMENT, weft_last_error() names the function and the argument, the
// outputs are untouched, and nothing aborts.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::Env;
using weft_test::Outs;
using Row = weft_test::Case<Env>;

const int64_t kShape17[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

weft_status_t CreateMesh(const std::vector<int64_t>& shape, const std::vector<int32_t>& ranks,
                         Outs& o) {
  return weft_mesh_create(nullptr, static_cast<int32_t>(shape.size()), shape.data(),
                          ranks.empty() ? nullptr : ranks.data(), &o.mesh);
}

weft_status_t CreateMeshWithOpts(Env& e, const void* opts, Outs& o) {
  return weft_mesh_create_ex(nullptr, 2, e.mesh_shape, nullptr,
                             static_cast<const weft_mesh_options_t*>(opts), &o.mesh);
}

std::vector<Row> MeshCreateCases() {
  return {
      {"MeshCreateNdimZero", "weft_mesh_create", "ndim", "0",
       [](Env&, Outs& o) { return CreateMesh({}, {}, o); }},
      {"MeshCreateNdimNegative", "weft_mesh_create", "ndim", "-1",
       [](Env& e, Outs& o) {
         return weft_mesh_create(nullptr, -1, e.mesh_shape, nullptr, &o.mesh);
       }},
      {"MeshCreateNdimTooLarge", "weft_mesh_create", "ndim", "17",
       [](Env&, Outs& o) { return weft_mesh_create(nullptr, 17, kShape17, nullptr, &o.mesh); }},
      {"MeshCreateShapeNull", "weft_mesh_create", "shape", nullptr,
       [](Env&, Outs& o) { return weft_mesh_create(nullptr, 2, nullptr, nullptr, &o.mesh); }},
      {"MeshCreateShapeZero", "weft_mesh_create", "shape[1]", "0",
       [](Env&, Outs& o) {
         return CreateMesh({2, 0}, {}, o);
       }},
      {"MeshCreateShapeNegative", "weft_mesh_create", "shape[0]", "-2",
       [](Env&, Outs& o) {
         return CreateMesh({-2, 4}, {}, o);
       }},
      {"MeshCreateShapeTooManyRanks", "weft_mesh_create", "shape", "2147483647",
       [](Env&, Outs& o) {
         return CreateMesh({65536, 65536}, {}, o);
       }},
      {"MeshCreateRanksNegative", "weft_mesh_create", "ranks[1]", "-1",
       [](Env&, Outs& o) {
         return CreateMesh({2, 2}, {0, -1, 2, 3}, o);
       }},
      {"MeshCreateRanksDuplicate", "weft_mesh_create", "ranks[3]", "1",
       [](Env&, Outs& o) {
         return CreateMesh({2, 2}, {0, 1, 2, 1}, o);
       }},
      {"MeshCreateOutNull", "weft_mesh_create", "mesh", nullptr,
       [](Env& e, Outs&) { return weft_mesh_create(nullptr, 2, e.mesh_shape, nullptr, nullptr); }},
  };
}

std::vector<Row> MeshCreateExCases() {
  struct Bigger {
    weft_mesh_options_t opts;
    uint64_t tail[2];
  };
  return {
      {"MeshCreateExNdim", "weft_mesh_create_ex", "ndim", "0",
       [](Env& e, Outs& o) {
         return weft_mesh_create_ex(nullptr, 0, e.mesh_shape, nullptr, nullptr, &o.mesh);
       }},
      {"MeshCreateExShapeNull", "weft_mesh_create_ex", "shape", nullptr,
       [](Env&, Outs& o) {
         return weft_mesh_create_ex(nullptr, 1, nullptr, nullptr, nullptr, &o.mesh);
       }},
      {"MeshCreateExRanksDuplicate", "weft_mesh_create_ex", "ranks[1]", "0",
       [](Env&, Outs& o) {
         const int64_t shape[1] = {2};
         const int32_t ranks[2] = {0, 0};
         return weft_mesh_create_ex(nullptr, 1, shape, ranks, nullptr, &o.mesh);
       }},
      {"MeshCreateExStructSizeZero", "weft_mesh_create_ex", "opts->struct_size", "0",
       [](Env& e, Outs& o) {
         weft_mesh_options_t opts = WEFT_MESH_OPTIONS_INIT;
         opts.struct_size = 0;
         return CreateMeshWithOpts(e, &opts, o);
       }},
      {"MeshCreateExStructSizeTooSmall", "weft_mesh_create_ex", "opts->struct_size", "15",
       [](Env& e, Outs& o) {
         weft_mesh_options_t opts = WEFT_MESH_OPTIONS_INIT;
         opts.struct_size = sizeof(opts) - 1;
         return CreateMeshWithOpts(e, &opts, o);
       }},
      {"MeshCreateExStructSizeNonZeroTail", "weft_mesh_create_ex", "opts->struct_size", "32",
       [](Env& e, Outs& o) {
         Bigger big{WEFT_MESH_OPTIONS_INIT, {0, 0}};
         big.opts.struct_size = sizeof(big);
         big.tail[1] = 1;
         return CreateMeshWithOpts(e, &big, o);
       }},
      {"MeshCreateExDimNamesRepeat", "weft_mesh_create_ex", "dim_names[1]", "\"a\"",
       [](Env& e, Outs& o) {
         const char* const names[2] = {"a", "a"};
         weft_mesh_options_t opts = WEFT_MESH_OPTIONS_INIT;
         opts.dim_names = names;
         return CreateMeshWithOpts(e, &opts, o);
       }},
      {"MeshCreateExOutNull", "weft_mesh_create_ex", "mesh", nullptr,
       [](Env& e, Outs&) {
         return weft_mesh_create_ex(nullptr, 2, e.mesh_shape, nullptr, nullptr, nullptr);
       }},
  };
}

std::vector<Row> MeshQueryCases() {
  return {
      {"MeshNdimMeshNull", "weft_mesh_ndim", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_ndim(nullptr, &o.i32[0]); }},
      {"MeshNdimOutNull", "weft_mesh_ndim", "ndim", nullptr,
       [](Env& e, Outs&) { return weft_mesh_ndim(e.mesh, nullptr); }},
      {"MeshShapeMeshNull", "weft_mesh_shape", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_shape(nullptr, o.i64.data()); }},
      {"MeshShapeOutNull", "weft_mesh_shape", "shape", nullptr,
       [](Env& e, Outs&) { return weft_mesh_shape(e.mesh, nullptr); }},
      {"MeshSizeMeshNull", "weft_mesh_size", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_size(nullptr, &o.i64[0]); }},
      {"MeshSizeOutNull", "weft_mesh_size", "size", nullptr,
       [](Env& e, Outs&) { return weft_mesh_size(e.mesh, nullptr); }},
      {"MeshCoordinateMeshNull", "weft_mesh_coordinate", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_coordinate(nullptr, 0, o.i64.data()); }},
      {"MeshCoordinateRankNegative", "weft_mesh_coordinate", "rank", "-1",
       [](Env& e, Outs& o) { return weft_mesh_coordinate(e.mesh, -1, o.i64.data()); }},
      {"MeshCoordinateRankOutside", "weft_mesh_coordinate", "rank", "8",
       [](Env& e, Outs& o) { return weft_mesh_coordinate(e.mesh, 8, o.i64.data()); }},
      {"MeshCoordinateOutNull", "weft_mesh_coordinate", "coord", nullptr,
       [](Env& e, Outs&) { return weft_mesh_coordinate(e.mesh, 0, nullptr); }},
      {"MeshContainsMeshNull", "weft_mesh_contains", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_contains(nullptr, 0, &o.i32[0]); }},
      {"MeshContainsOutNull", "weft_mesh_contains", "contains", nullptr,
       [](Env& e, Outs&) { return weft_mesh_contains(e.mesh, 0, nullptr); }},
      {"MeshRankAtMeshNull", "weft_mesh_rank_at", "mesh", nullptr,
       [](Env&, Outs& o) {
         const int64_t c[2] = {0, 0};
         return weft_mesh_rank_at(nullptr, c, &o.i32[0]);
       }},
      {"MeshRankAtCoordNull", "weft_mesh_rank_at", "coord", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_rank_at(e.mesh, nullptr, &o.i32[0]); }},
      {"MeshRankAtCoordTooLarge", "weft_mesh_rank_at", "coord[1]", "4",
       [](Env& e, Outs& o) {
         const int64_t c[2] = {1, 4};
         return weft_mesh_rank_at(e.mesh, c, &o.i32[0]);
       }},
      {"MeshRankAtCoordNegative", "weft_mesh_rank_at", "coord[0]", "-1",
       [](Env& e, Outs& o) {
         const int64_t c[2] = {-1, 0};
         return weft_mesh_rank_at(e.mesh, c, &o.i32[0]);
       }},
      {"MeshRankAtOutNull", "weft_mesh_rank_at", "rank", nullptr,
       [](Env& e, Outs&) {
         const int64_t c[2] = {0, 0};
         return weft_mesh_rank_at(e.mesh, c, nullptr);
       }},
      {"MeshGroupMeshNull", "weft_mesh_group", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_group(nullptr, 0, 0, o.i32.data(), 8); }},
      {"MeshGroupDimNegative", "weft_mesh_group", "dim", "-1",
       [](Env& e, Outs& o) { return weft_mesh_group(e.mesh, -1, 0, o.i32.data(), 8); }},
      {"MeshGroupDimTooLarge", "weft_mesh_group", "dim", "2",
       [](Env& e, Outs& o) { return weft_mesh_group(e.mesh, 2, 0, o.i32.data(), 8); }},
      {"MeshGroupRankNegative", "weft_mesh_group", "rank", "-3",
       [](Env& e, Outs& o) { return weft_mesh_group(e.mesh, 1, -3, o.i32.data(), 8); }},
      {"MeshGroupRankOutside", "weft_mesh_group", "rank", "8",
       [](Env& e, Outs& o) { return weft_mesh_group(e.mesh, 1, 8, o.i32.data(), 8); }},
      {"MeshGroupRanksNull", "weft_mesh_group", "ranks", nullptr,
       [](Env& e, Outs&) { return weft_mesh_group(e.mesh, 1, 0, nullptr, 8); }},
      {"MeshGroupLenTooSmall", "weft_mesh_group", "len", "3",
       [](Env& e, Outs& o) { return weft_mesh_group(e.mesh, 1, 0, o.i32.data(), 3); }},
      {"MeshGroupLenNegative", "weft_mesh_group", "len", "-1",
       [](Env& e, Outs& o) { return weft_mesh_group(e.mesh, 0, 0, o.i32.data(), -1); }},
  };
}

std::vector<Row> MeshSliceCases() {
  static const int32_t kTp[1] = {1}, kTooBig[1] = {2}, kDescending[2] = {1, 0},
                       kRepeated[2] = {1, 1}, kNegative[1] = {-1};
  static const char* const kTpName[1] = {"tp"};
  return {
      {"MeshSliceMeshNull", "weft_mesh_slice", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_slice(nullptr, 1, kTp, 0, &o.mesh); }},
      {"MeshSliceNkeepZero", "weft_mesh_slice", "nkeep", "0",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 0, kTp, 0, &o.mesh); }},
      {"MeshSliceNkeepTooLarge", "weft_mesh_slice", "nkeep", "3",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 3, kDescending, 0, &o.mesh); }},
      {"MeshSliceDimsNull", "weft_mesh_slice", "dims", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 1, nullptr, 0, &o.mesh); }},
      {"MeshSliceDimOutOfRange", "weft_mesh_slice", "dims[0]", "2",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 1, kTooBig, 0, &o.mesh); }},
      {"MeshSliceDimNegative", "weft_mesh_slice", "dims[0]", "-1",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 1, kNegative, 0, &o.mesh); }},
      {"MeshSliceDimsDescending", "weft_mesh_slice", "dims[1]", "0",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 2, kDescending, 0, &o.mesh); }},
      {"MeshSliceDimsRepeated", "weft_mesh_slice", "dims[1]", "1",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 2, kRepeated, 0, &o.mesh); }},
      {"MeshSliceRankNegative", "weft_mesh_slice", "rank", "-1",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 1, kTp, -1, &o.mesh); }},
      {"MeshSliceRankOutside", "weft_mesh_slice", "rank", "8",
       [](Env& e, Outs& o) { return weft_mesh_slice(e.mesh, 1, kTp, 8, &o.mesh); }},
      {"MeshSliceOutNull", "weft_mesh_slice", "out", nullptr,
       [](Env& e, Outs&) { return weft_mesh_slice(e.mesh, 1, kTp, 0, nullptr); }},
      {"MeshSliceByNamesMeshNull", "weft_mesh_slice_by_names", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_slice_by_names(nullptr, 1, kTpName, 0, &o.mesh); }},
      {"MeshSliceByNamesNkeepZero", "weft_mesh_slice_by_names", "nkeep", "0",
       [](Env& e, Outs& o) { return weft_mesh_slice_by_names(e.mesh, 0, kTpName, 0, &o.mesh); }},
      {"MeshSliceByNamesNkeepTooLarge", "weft_mesh_slice_by_names", "nkeep", "3",
       [](Env& e, Outs& o) { return weft_mesh_slice_by_names(e.mesh, 3, kTpName, 0, &o.mesh); }},
      {"MeshSliceByNamesNamesNull", "weft_mesh_slice_by_names", "names", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_slice_by_names(e.mesh, 1, nullptr, 0, &o.mesh); }},
      {"MeshSliceByNamesNameNull", "weft_mesh_slice_by_names", "names[1]", "NULL",
       [](Env& e, Outs& o) {
         const char* const names[2] = {"dp", nullptr};
         return weft_mesh_slice_by_names(e.mesh, 2, names, 0, &o.mesh);
       }},
      {"MeshSliceByNamesUnknown", "weft_mesh_slice_by_names", "names[0]", "\"zz\"",
       [](Env& e, Outs& o) {
         const char* const names[1] = {"zz"};
         return weft_mesh_slice_by_names(e.mesh, 1, names, 0, &o.mesh);
       }},
      {"MeshSliceByNamesRepeated", "weft_mesh_slice_by_names", "names[1]", nullptr,
       [](Env& e, Outs& o) {
         const char* const names[2] = {"tp", "tp"};
         return weft_mesh_slice_by_names(e.mesh, 2, names, 0, &o.mesh);
       }},
      {"MeshSliceByNamesRankNegative", "weft_mesh_slice_by_names", "rank", "-1",
       [](Env& e, Outs& o) { return weft_mesh_slice_by_names(e.mesh, 1, kTpName, -1, &o.mesh); }},
      {"MeshSliceByNamesRankOutside", "weft_mesh_slice_by_names", "rank", "99",
       [](Env& e, Outs& o) { return weft_mesh_slice_by_names(e.mesh, 1, kTpName, 99, &o.mesh); }},
      {"MeshSliceByNamesOutNull", "weft_mesh_slice_by_names", "out", nullptr,
       [](Env& e, Outs&) { return weft_mesh_slice_by_names(e.mesh, 1, kTpName, 0, nullptr); }},
  };
}

std::vector<Row> MeshFlattenAndNameCases() {
  return {
      {"MeshFlattenMeshNull", "weft_mesh_flatten", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_flatten(nullptr, 0, 2, "all", &o.mesh); }},
      {"MeshFlattenFirstNegative", "weft_mesh_flatten", "first", "-1",
       [](Env& e, Outs& o) { return weft_mesh_flatten(e.mesh, -1, 2, "all", &o.mesh); }},
      {"MeshFlattenFirstTooLarge", "weft_mesh_flatten", "first", "2",
       [](Env& e, Outs& o) { return weft_mesh_flatten(e.mesh, 2, 1, "all", &o.mesh); }},
      {"MeshFlattenCountZero", "weft_mesh_flatten", "count", "0",
       [](Env& e, Outs& o) { return weft_mesh_flatten(e.mesh, 0, 0, "all", &o.mesh); }},
      {"MeshFlattenCountTooLarge", "weft_mesh_flatten", "count", "3",
       [](Env& e, Outs& o) { return weft_mesh_flatten(e.mesh, 0, 3, "all", &o.mesh); }},
      {"MeshFlattenCountHuge", "weft_mesh_flatten", "count", "2147483647",
       [](Env& e, Outs& o) { return weft_mesh_flatten(e.mesh, 1, INT32_MAX, "all", &o.mesh); }},
      {"MeshFlattenNameTaken", "weft_mesh_flatten", "name", "\"tp\"",
       [](Env& e, Outs& o) { return weft_mesh_flatten(e.mesh, 0, 1, "tp", &o.mesh); }},
      {"MeshFlattenOutNull", "weft_mesh_flatten", "out", nullptr,
       [](Env& e, Outs&) { return weft_mesh_flatten(e.mesh, 0, 2, "all", nullptr); }},
      {"MeshDimIndexMeshNull", "weft_mesh_dim_index", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_dim_index(nullptr, "tp", &o.i32[0]); }},
      {"MeshDimIndexNameNull", "weft_mesh_dim_index", "name", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_dim_index(e.mesh, nullptr, &o.i32[0]); }},
      {"MeshDimIndexNameUnknown", "weft_mesh_dim_index", "name", "\"zz\"",
       [](Env& e, Outs& o) { return weft_mesh_dim_index(e.mesh, "zz", &o.i32[0]); }},
      {"MeshDimIndexNameEmpty", "weft_mesh_dim_index", "name", "\"\"",
       [](Env& e, Outs& o) { return weft_mesh_dim_index(e.mesh, "", &o.i32[0]); }},
      {"MeshDimIndexOutNull", "weft_mesh_dim_index", "dim", nullptr,
       [](Env& e, Outs&) { return weft_mesh_dim_index(e.mesh, "tp", nullptr); }},
      {"MeshDimNameMeshNull", "weft_mesh_dim_name", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_dim_name(nullptr, 0, o.buf.data(), 256, &o.needed); }},
      {"MeshDimNameDimNegative", "weft_mesh_dim_name", "dim", "-1",
       [](Env& e, Outs& o) {
         return weft_mesh_dim_name(e.mesh, -1, o.buf.data(), 256, &o.needed);
       }},
      {"MeshDimNameDimTooLarge", "weft_mesh_dim_name", "dim", "2",
       [](Env& e, Outs& o) { return weft_mesh_dim_name(e.mesh, 2, o.buf.data(), 256, &o.needed); }},
      {"MeshDimNameNeededNull", "weft_mesh_dim_name", "needed", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_dim_name(e.mesh, 0, o.buf.data(), 256, nullptr); }},
      {"MeshDimNameBufNull", "weft_mesh_dim_name", "buf", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_dim_name(e.mesh, 0, nullptr, 256, &o.needed); }},
      {"MeshDimNameLenTooSmall", "weft_mesh_dim_name", "len", "2",
       [](Env& e, Outs& o) { return weft_mesh_dim_name(e.mesh, 0, o.buf.data(), 2, &o.needed); }},
      {"MeshEqualANull", "weft_mesh_equal", "a", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_equal(nullptr, e.mesh, &o.i32[0]); }},
      {"MeshEqualBNull", "weft_mesh_equal", "b", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_equal(e.mesh, nullptr, &o.i32[0]); }},
      {"MeshEqualOutNull", "weft_mesh_equal", "equal", nullptr,
       [](Env& e, Outs&) { return weft_mesh_equal(e.mesh, e.mesh, nullptr); }},
      {"MeshDescribeMeshNull", "weft_mesh_describe", "mesh", nullptr,
       [](Env&, Outs& o) { return weft_mesh_describe(nullptr, o.buf.data(), 256, &o.needed); }},
      {"MeshDescribeNeededNull", "weft_mesh_describe", "needed", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_describe(e.mesh, o.buf.data(), 256, nullptr); }},
      {"MeshDescribeBufNull", "weft_mesh_describe", "buf", nullptr,
       [](Env& e, Outs& o) { return weft_mesh_describe(e.mesh, nullptr, 256, &o.needed); }},
      {"MeshDescribeLenTooSmall", "weft_mesh_describe", "len", "4",
       [](Env& e, Outs& o) { return weft_mesh_describe(e.mesh, o.buf.data(), 4, &o.needed); }},
  };
}

std::vector<Row> AllCases() {
  std::vector<Row> all;
  for (auto group : {MeshCreateCases, MeshCreateExCases, MeshQueryCases, MeshSliceCases,
                     MeshFlattenAndNameCases}) {
    std::vector<Row> cases = group();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

class MeshBadInput : public testing::TestWithParam<Row> {};

TEST_P(MeshBadInput, IsRejectedNamingTheArgument) {
  Env env;
  weft_test::ExpectRejected(GetParam(), env);
}

INSTANTIATE_TEST_SUITE_P(Api, MeshBadInput, testing::ValuesIn(AllCases()),
                         weft_test::CaseName<Env>);

}  // namespace
