// The rules C ABI (weft/rules.h): strategies through handles on abstract meshes, attributes as
// weft_attr_t arrays, and every invalid argument a clear error naming the call and argument.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace {

const DLDataType kF32 = {kDLFloat, 32, 1};

std::string LastError() { return weft_last_error(); }

class RulesApi : public ::testing::Test {
 protected:
  void SetUp() override {
    const int64_t shape[2] = {2, 2};
    ASSERT_EQ(weft_mesh_create(nullptr, 2, shape, nullptr, &mesh_), WEFT_OK);
    ASSERT_EQ(weft_rules_create(&rules_), WEFT_OK);
  }
  void TearDown() override {
    for (weft_layout_t* l : layouts_) EXPECT_EQ(weft_layout_destroy(l), WEFT_OK);
    EXPECT_EQ(weft_rules_destroy(rules_), WEFT_OK);
    EXPECT_EQ(weft_mesh_destroy(mesh_), WEFT_OK);
  }
  const weft_layout_t* Layout(std::vector<int64_t> shape, std::vector<weft_placement_t> p) {
    weft_layout_t* l = nullptr;
    EXPECT_EQ(weft_layout_create(mesh_, static_cast<int32_t>(shape.size()), shape.data(), kF32,
                                 p.data(), &l),
              WEFT_OK)
        << LastError();
    layouts_.push_back(l);
    return l;
  }
  static weft_attr_t Attr(const char* name, int32_t kind) {
    weft_attr_t a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.name = name;
    a.kind = kind;
    return a;
  }

  weft_mesh_t* mesh_ = nullptr;
  weft_rules_t* rules_ = nullptr;
  std::vector<weft_layout_t*> layouts_;
};

std::vector<weft_placement_t> Placements(weft_layout_t* l, int32_t n) {
  std::vector<weft_placement_t> p(static_cast<size_t>(n));
  EXPECT_EQ(weft_layout_placements(l, p.data()), WEFT_OK);
  return p;
}

TEST_F(RulesApi, PropagateGivesLayoutsCostAndDescription) {
  // Rows over mesh dim 0; the contracted dim over mesh dim 1 on both operands: [S(0), P(sum)].
  const weft_layout_t* in[2] = {
      Layout({8, 6}, {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1)}),
      Layout({6, 4}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_SHARD(0)})};
  weft_strategy_t* s = nullptr;
  ASSERT_EQ(weft_rules_propagate(rules_, "matmul", 2, in, nullptr, 0, &s), WEFT_OK) << LastError();
  double cost = -1;
  ASSERT_EQ(weft_strategy_cost(s, &cost), WEFT_OK);
  EXPECT_EQ(cost, 0);
  weft_layout_t* out = nullptr;
  ASSERT_EQ(weft_strategy_output_layout(s, 0, &out), WEFT_OK);
  const auto p = Placements(out, 2);
  EXPECT_EQ(p[0].kind, WEFT_SHARD);
  EXPECT_EQ(p[0].dim, 0);
  EXPECT_EQ(p[1].kind, WEFT_PARTIAL);
  EXPECT_EQ(p[1].reduce_op, WEFT_REDUCE_SUM);
  int64_t global[2] = {};
  ASSERT_EQ(weft_layout_global_shape(out, global), WEFT_OK);
  EXPECT_EQ(global[0], 8);
  EXPECT_EQ(global[1], 4);
  size_t needed = 0;
  ASSERT_EQ(weft_strategy_describe(s, nullptr, 0, &needed), WEFT_OK);
  std::string text(needed, '\0');
  ASSERT_EQ(weft_strategy_describe(s, text.data(), text.size(), &needed), WEFT_OK);
  EXPECT_NE(text.find("output 0: float32[8, 4]"), std::string::npos) << text;
  EXPECT_EQ(weft_layout_destroy(out), WEFT_OK);
  EXPECT_EQ(weft_strategy_destroy(s), WEFT_OK);
}

TEST_F(RulesApi, EnumerateListsCheapestFirstAndCountsAll) {
  const weft_layout_t* in[1] = {
      Layout({8, 6}, {WEFT_PLACEMENT_PARTIAL(WEFT_REDUCE_MAX), WEFT_PLACEMENT_SHARD(1)})};
  int32_t count = 0;
  ASSERT_EQ(weft_rules_enumerate(rules_, "neg", 1, in, nullptr, 0, nullptr, 0, &count), WEFT_OK)
      << LastError();
  ASSERT_GT(count, 1);
  std::vector<weft_strategy_t*> all(static_cast<size_t>(count), nullptr);
  ASSERT_EQ(weft_rules_enumerate(rules_, "neg", 1, in, nullptr, 0, all.data(), count, &count),
            WEFT_OK);
  double last = 0;
  for (weft_strategy_t* s : all) {
    double c = -1;
    ASSERT_EQ(weft_strategy_cost(s, &c), WEFT_OK);
    EXPECT_GE(c, last);
    last = c;
  }
  // The cheapest keeps the partial max as a partial min: neg flips it, nothing moves.
  weft_layout_t* out = nullptr;
  ASSERT_EQ(weft_strategy_output_layout(all[0], 0, &out), WEFT_OK);
  const auto p = Placements(out, 2);
  EXPECT_EQ(p[0].kind, WEFT_PARTIAL);
  EXPECT_EQ(p[0].reduce_op, WEFT_REDUCE_MIN);
  EXPECT_EQ(weft_layout_destroy(out), WEFT_OK);
  for (weft_strategy_t* s : all) EXPECT_EQ(weft_strategy_destroy(s), WEFT_OK);
}

TEST_F(RulesApi, AttributesArriveTyped) {
  const weft_layout_t* in[1] = {Layout({8}, {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_REPLICATE})};
  const int64_t dims[2] = {0, 1};
  std::vector<weft_attr_t> attrs = {Attr("i", WEFT_ATTR_INT),    Attr("l", WEFT_ATTR_INTS),
                                    Attr("f", WEFT_ATTR_FLOAT),  Attr("b", WEFT_ATTR_BOOL),
                                    Attr("s", WEFT_ATTR_STRING), Attr("t", WEFT_ATTR_DTYPE)};
  attrs[1].ints = dims;
  attrs[1].n_ints = 2;
  attrs[3].i = 1;
  attrs[4].s = "text";
  attrs[5].dtype = kF32;
  weft_strategy_t* s = nullptr;
  ASSERT_EQ(weft_rules_propagate(rules_, "relu", 1, in, attrs.data(), 6, &s), WEFT_OK)
      << LastError();
  EXPECT_EQ(weft_strategy_destroy(s), WEFT_OK);
  attrs[3].i = 2;
  EXPECT_EQ(weft_rules_propagate(rules_, "relu", 1, in, attrs.data(), 6, &s),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "weft_rules_propagate: attrs[3].i must be 0 or 1 for a bool");
  attrs[3].i = 1;
  attrs[0].kind = 9;
  EXPECT_EQ(weft_rules_propagate(rules_, "relu", 1, in, attrs.data(), 6, &s),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "weft_rules_propagate: attrs[0].kind is 9 but must be WEFT_ATTR_INT (0) .. "
            "WEFT_ATTR_DTYPE (5)");
  attrs[0].kind = WEFT_ATTR_INT;
  attrs[2].name = "i";
  EXPECT_EQ(weft_rules_propagate(rules_, "relu", 1, in, attrs.data(), 6, &s),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "weft_rules_propagate: attribute 'i' is given twice");
  attrs[2].name = "f";
  attrs[0].struct_size = 8;
  EXPECT_EQ(weft_rules_propagate(rules_, "relu", 1, in, attrs.data(), 6, &s),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "weft_rules_propagate: attrs[0].struct_size is 8 but must be at least 72");
}

TEST_F(RulesApi, BadArgumentsAreClearErrors) {
  const weft_layout_t* in[2] = {
      Layout({8, 6}, {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_REPLICATE}),
      Layout({6, 4}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE})};
  weft_strategy_t* s = nullptr;
  auto bad = [](weft_status_t got, const std::string& message) {
    EXPECT_EQ(got, WEFT_ERR_INVALID_ARGUMENT) << message;
    EXPECT_EQ(LastError(), message);
  };
  bad(weft_rules_create(nullptr), "weft_rules_create: rules is NULL");
  bad(weft_rules_propagate(nullptr, "add", 2, in, nullptr, 0, &s),
      "weft_rules_propagate: rules is NULL");
  bad(weft_rules_propagate(rules_, nullptr, 2, in, nullptr, 0, &s),
      "weft_rules_propagate: op is NULL");
  bad(weft_rules_propagate(rules_, "add", -1, in, nullptr, 0, &s),
      "weft_rules_propagate: n_inputs is -1 but must be 0..64");
  bad(weft_rules_propagate(rules_, "add", 2, nullptr, nullptr, 0, &s),
      "weft_rules_propagate: inputs is NULL");
  bad(weft_rules_propagate(rules_, "add", 2, in, nullptr, 1, &s),
      "weft_rules_propagate: attrs is NULL");
  bad(weft_rules_propagate(rules_, "add", 2, in, nullptr, 0, nullptr),
      "weft_rules_propagate: strategy is NULL");
  bad(weft_rules_propagate(rules_, "conv9d", 2, in, nullptr, 0, &s),
      "weft_rules_propagate: no operator 'conv9d' is registered");
  bad(weft_rules_enumerate(rules_, "add", 2, in, nullptr, 0, nullptr, 1, nullptr),
      "weft_rules_enumerate: count is NULL");
  int32_t count = 0;
  bad(weft_rules_enumerate(rules_, "add", 2, in, nullptr, 0, nullptr, 1, &count),
      "weft_rules_enumerate: out is NULL");
  bad(weft_rules_list_ops(rules_, nullptr, 0, nullptr), "weft_rules_list_ops: needed is NULL");
  bad(weft_strategy_cost(nullptr, nullptr), "weft_strategy_cost: s is NULL");
  EXPECT_EQ(s, nullptr);  // nothing was handed out
  EXPECT_EQ(weft_rules_propagate(rules_, "matmul", 1, in, nullptr, 0, &s),
            WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "weft_rules_propagate: operator 'matmul' takes 2 inputs, got 1");
  EXPECT_EQ(weft_rules_propagate(rules_, "add", 2, in, nullptr, 0, &s), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "weft_rules_propagate: operator 'add': shapes [8,6] and [6,4] do not broadcast");
  // A layout handle where a registry belongs.
  auto* wrong = reinterpret_cast<weft_rules_t*>(const_cast<weft_layout_t*>(in[0]));
  EXPECT_EQ(weft_rules_propagate(wrong, "add", 2, in, nullptr, 0, &s), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("is a weft_layout_t handle, not a weft_rules_t"), std::string::npos)
      << LastError();
  // Out of range accessors, and a destroyed strategy.
  const weft_layout_t* ok_in[2] = {
      in[0], Layout({6, 4}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE})};
  ASSERT_EQ(weft_rules_propagate(rules_, "matmul", 2, ok_in, nullptr, 0, &s), WEFT_OK)
      << LastError();
  weft_layout_t* l = nullptr;
  EXPECT_EQ(weft_strategy_input_layout(s, 2, &l), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "weft_strategy_input_layout: i is 2 but the strategy has 2 inputs");
  EXPECT_EQ(weft_strategy_output_layout(s, -1, &l), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "weft_strategy_output_layout: i is -1 but the strategy has 1 outputs");
  EXPECT_EQ(weft_strategy_destroy(s), WEFT_OK);
  double c = 0;
  EXPECT_EQ(weft_strategy_cost(s, &c), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(weft_strategy_destroy(nullptr), WEFT_OK);
}

}  // namespace

namespace {

// A conv on an image sharded by rows over mesh dim 0 and by columns over mesh dim 1: the
// strategy's halo descriptor makes a halo plan whose padded block is the window the kernel
// reads (one row and column past each side, zeros at the edges).
TEST_F(RulesApi, WindowedOperatorsHandOutTheirHalo) {
  const weft_layout_t* in[2] = {
      Layout({1, 2, 8, 6}, {WEFT_PLACEMENT_SHARD(2), WEFT_PLACEMENT_SHARD(3)}),
      Layout({4, 2, 3, 3}, {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE})};
  const int64_t pad = 1;
  weft_attr_t attr = Attr("padding", WEFT_ATTR_INTS);
  attr.ints = &pad;
  attr.n_ints = 1;
  weft_strategy_t* s = nullptr;
  ASSERT_EQ(weft_rules_propagate(rules_, "conv2d", 2, in, &attr, 1, &s), WEFT_OK) << LastError();
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  ASSERT_EQ(weft_strategy_input_halo(s, 1, &desc), WEFT_OK) << LastError();
  EXPECT_EQ(desc.ndims, 0);  // the weight needs none
  ASSERT_EQ(weft_strategy_input_halo(s, 0, &desc), WEFT_OK) << LastError();
  ASSERT_EQ(desc.ndims, 2);
  EXPECT_EQ(desc.dims[0].dim, 2);
  EXPECT_EQ(desc.dims[0].boundary_lo, WEFT_BOUNDARY_CONSTANT);
  EXPECT_EQ(desc.dims[1].pad_hi, 1);
  weft_layout_t* x = nullptr;
  ASSERT_EQ(weft_strategy_input_layout(s, 0, &x), WEFT_OK);
  weft_plan_options_t opts = WEFT_PLAN_OPTIONS_INIT;
  opts.rank = 3;  // mesh position (1, 1): rows [4, 8), columns [3, 6)
  weft_plan_t* plan = nullptr;
  ASSERT_EQ(weft_halo_plan_create(x, &desc, &opts, &plan), WEFT_OK) << LastError();
  int64_t shape[4] = {}, origin[4] = {};
  ASSERT_EQ(weft_halo_padded_shape(plan, -1, shape, origin), WEFT_OK) << LastError();
  EXPECT_EQ(origin[2], 3);
  EXPECT_EQ(shape[2], 6);  // rows 3..8: the last one is padding
  EXPECT_EQ(origin[3], 2);
  EXPECT_EQ(shape[3], 5);
  EXPECT_EQ(weft_plan_destroy(plan), WEFT_OK);
  EXPECT_EQ(weft_layout_destroy(x), WEFT_OK);
  EXPECT_EQ(weft_strategy_input_halo(s, 2, &desc), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("i is 2"), std::string::npos) << LastError();
  EXPECT_EQ(weft_strategy_input_halo(s, 0, nullptr), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(weft_strategy_destroy(s), WEFT_OK);
}

}  // namespace
