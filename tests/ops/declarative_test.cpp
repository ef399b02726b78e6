// Einsum operators and rules files: the parser's messages (with columns and lines), the
// strategies an equation gives, checked by hand on abstract meshes, the bias-carrying
// products built on them, and the one-process kernels against hand-computed values.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ops/declarative/einsum.hpp"
#include "ops/declarative/rules_file.hpp"
#include "ops/engine/engine.hpp"
#include "ops/rules/builtin.hpp"
#include "tests/ops/engine_fixture.hpp"

namespace weft::ops {
namespace {

using namespace weft::ops::testing;  // NOLINT(google-build-using-namespace)

TEST(EinsumParse, ExplicitAndImplicitOutputs) {
  auto s = ParseEinsum("bhqd, bhkd -> bhqk");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->inputs, (std::vector<std::string>{"bhqd", "bhkd"}));
  EXPECT_EQ(s->output, "bhqk");
  auto implicit = ParseEinsum("ij,jk");
  ASSERT_TRUE(implicit.ok());
  EXPECT_EQ(implicit->output, "ik");  // letters seen once, in ASCII order
  auto trace = ParseEinsum("ii->");
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->output, "");
}

TEST(EinsumParse, ErrorsNameTheColumn) {
  struct Case {
    const char* eq;
    const char* want;
  } cases[] = {
      {"ab,b1->a", "column 5: unexpected '1'"},
      {"ab,,bc->ac", "column 4: an input with no letters before ','"},
      {"ab,bc->ad", "column 9: output letter 'd' is in no input"},
      {"ab,bc->aa", "column 9: output letter 'a' appears twice"},
      {"...a,a->", "column 1: '...' is not supported"},
      {"", "no inputs"},
      {"ab,", "an input with no letters at the end"},
  };
  for (const Case& c : cases) {
    auto s = ParseEinsum(c.eq);
    ASSERT_FALSE(s.ok()) << c.eq;
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.want), std::string::npos)
        << c.eq << ": " << s.status().message();
  }
  auto shifted = ParseEinsum("ab,b1->a", 20);  // where a rules file has the equation
  EXPECT_NE(shifted.status().message().find("column 24"), std::string::npos);
}

class DeclarativeTest : public EngineFixture {
 protected:
  static Attributes Eq(const std::string& e) {
    Attributes a;
    EXPECT_TRUE(a.Set("equation", e).ok());
    return a;
  }
};

TEST_F(DeclarativeTest, ContractedShardGivesPartialSum) {
  auto mesh = Mesh({4});
  // q and k sharded on d (contracted): no move, P(sum) scores.
  auto q = Make(mesh, {2, 4, 8, 16}, {S(3)});
  auto k = Make(mesh, {2, 4, 8, 16}, {S(3)});
  auto s = Run("einsum", {q, k}, Eq("bhqd,bhkd->bhqk"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_TRUE(s->outputs[0]->SameAs(*Make(mesh, {2, 4, 8, 8}, {P()})));
}

TEST_F(DeclarativeTest, BatchShardFollowsWithItsUnevenSplit) {
  auto mesh = Mesh({3});
  // Heads sharded with an explicit ragged split on both: the output keeps that split.
  auto q = Make(mesh, {2, 7, 8, 16}, {S(1)},
                {std::nullopt, std::vector<int64_t>{4, 0, 3}, std::nullopt, std::nullopt});
  auto k = Make(mesh, {2, 7, 8, 16}, {S(1)},
                {std::nullopt, std::vector<int64_t>{4, 0, 3}, std::nullopt, std::nullopt});
  auto s = Run("einsum", {q, k}, Eq("bhqd,bhkd->bhqk"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_TRUE(s->outputs[0]->SameAs(
      *Make(mesh, {2, 7, 8, 8}, {S(1)},
            {std::nullopt, std::vector<int64_t>{4, 0, 3}, std::nullopt, std::nullopt})));
}

TEST_F(DeclarativeTest, LinearInputPartialPassesUnlessDeclaredOtherwise) {
  auto mesh = Mesh({2});
  auto a = Make(mesh, {4, 6}, {P()});
  auto b = Make(mesh, {6, 5}, {R});
  auto s = Run("einsum", {a, b}, Eq("ij,jk->ik"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_TRUE(s->outputs[0]->SameAs(*Make(mesh, {4, 5}, {P()})));

  Registry reg;
  auto spec = ParseEinsum("ij,jk->ik");
  ASSERT_TRUE(spec.ok());
  spec->linear = {false, true};
  spec->unshardable = "j";
  ASSERT_TRUE(reg.Add(MakeEinsumOp("nl", *spec, "test")).ok());
  Engine e(reg);
  auto t = e.Propagate("nl", std::vector<LayoutPtr>{a, b}, {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_GT((*t)->cost, 0);  // the Partial must be reduced first
  EXPECT_TRUE((*t)->inputs[0]->SameAs(*Make(mesh, {4, 6}, {R})) ||
              (*t)->inputs[0]->SameAs(*Make(mesh, {4, 6}, {S(0)})));
  auto c = Make(mesh, {4, 6}, {S(1)});
  auto u = e.Propagate("nl", std::vector<LayoutPtr>{c, b}, {});
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE((*u)->inputs[0]->SameAs(*c));  // j may not stay sharded
}

TEST_F(DeclarativeTest, MismatchedShapesAreClearErrors) {
  auto mesh = Mesh({2});
  auto a = Make(mesh, {4, 6}, {R});
  auto b = Make(mesh, {7, 5}, {R});
  auto s = engine_.Propagate("einsum", std::vector<LayoutPtr>{a, b}, Eq("ij,jk->ik"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("letter 'j' is 6 in one place and 7 in input 1"),
            std::string::npos)
      << s.status().message();
  auto t = engine_.Propagate("einsum", std::vector<LayoutPtr>{a, b}, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("equation"), std::string::npos) << t.status().message();
}

TEST_F(DeclarativeTest, LinearBiasFollowsTheOutput) {
  auto mesh = Mesh({2, 2});
  // Column-parallel: w sharded by rows (out features) on mesh dim 1, x by batch on dim 0.
  auto x = Make(mesh, {8, 6}, {S(0), R});
  auto w = Make(mesh, {10, 6}, {R, S(0)});
  auto b = Make(mesh, {10}, {R, S(0)});
  auto s = Run("linear", {x, w, b});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_TRUE(s->outputs[0]->SameAs(*Make(mesh, {8, 10}, {S(0), S(1)})));
  // Row-parallel: x and w sharded on the contracted dim: P(sum) output, bias must be P(sum).
  auto x2 = Make(mesh, {8, 6}, {R, S(1)});
  auto w2 = Make(mesh, {10, 6}, {R, S(1)});
  auto b2 = Make(mesh, {10}, {R, P()});
  auto t = Run("linear", {x2, w2, b2});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cost, 0);
  EXPECT_TRUE(t->outputs[0]->SameAs(*Make(mesh, {8, 10}, {R, P()})));
}

TEST_F(DeclarativeTest, AddmmBroadcastBias) {
  auto mesh = Mesh({2});
  auto bias = Make(mesh, {5}, {S(0)}, {std::vector<int64_t>{3, 2}});
  auto a = Make(mesh, {4, 6}, {R});
  auto b = Make(mesh, {6, 5}, {S(1)}, {std::nullopt, std::vector<int64_t>{3, 2}});
  auto s = Run("addmm", {bias, a, b});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_TRUE(s->outputs[0]->SameAs(
      *Make(mesh, {4, 5}, {S(1)}, {std::nullopt, std::vector<int64_t>{3, 2}})));
}

TEST(EinsumKernel, MatchesHandComputedValues) {
  auto spec = ParseEinsum("ij,jk->ik");
  ASSERT_TRUE(spec.ok());
  DenseTensor a{{2, 3}, {1, 2, 3, 4, 5, 6}}, b{{3, 2}, {1, 0, 0, 1, 1, 1}}, out;
  std::vector<DenseTensor> in{a, b};
  ASSERT_TRUE(EinsumKernel(*spec, "t", in, &out).ok());
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out.values, (std::vector<double>{4, 5, 10, 11}));
  auto trace = ParseEinsum("ii->");
  std::vector<DenseTensor> sq{DenseTensor{{2, 2}, {1, 2, 3, 4}}};
  ASSERT_TRUE(EinsumKernel(*trace, "t", sq, &out).ok());
  EXPECT_EQ(out.values, (std::vector<double>{5}));
}

// A rank's empty piece is an extent 0, not a broadcast 1: the harness found both the rule and
// the kernel giving such a rank a block of one row.
TEST(EinsumKernel, ZeroExtentIsNotBroadcast) {
  auto spec = ParseEinsum("ij,jk->ik");
  ASSERT_TRUE(spec.ok());
  DenseTensor out;
  std::vector<DenseTensor> in{{{0, 3}, {}}, {{3, 1}, {1, 2, 3}}};
  ASSERT_TRUE(EinsumKernel(*spec, "t", in, &out).ok());
  EXPECT_EQ(out.shape, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(out.values.empty());
  RuleResult r;
  const std::vector<TensorInfo> infos{{{0, 3}, kF32}, {{1, 3}, kF32}};
  auto same = ParseEinsum("ij,ij->ij");
  ASSERT_TRUE(EinsumRule(*same, "t", infos, &r).ok());
  EXPECT_EQ(r.outputs[0].shape, (std::vector<int64_t>{0, 3}));  // the 1 broadcasts to 0
}

TEST(EinsumKernel, LinearAddsTheBias) {
  Registry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  const OpDef* op = reg.Find("linear");
  ASSERT_TRUE(op && op->kernel);
  std::vector<DenseTensor> in{{{1, 2}, {1, 2}}, {{3, 2}, {1, 0, 0, 1, 1, 1}}, {{3}, {10, 20, 30}}};
  std::vector<TensorInfo> info{{{1, 2}, kF32}, {{3, 2}, kF32}, {{3}, kF32}};
  Attributes attrs;
  KernelCall call;
  call.inputs = in;
  call.global_inputs = info;
  call.attrs = &attrs;
  std::vector<DenseTensor> out;
  ASSERT_TRUE(op->kernel(call, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{11, 22, 33}));
}

std::string Write(const std::string& text) {
  std::string path = ::testing::TempDir() + "weft_rules_test.rules";
  std::ofstream(path) << text;
  return path;
}

TEST(RulesFile, RegistersEverythingItDeclares) {
  Registry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  const std::string path = Write(
      "# attention blocks\n"
      "weft-rules 1\n"
      "\n"
      "einsum attn_scores \"bhqd, bhkd -> bhqk\" unshardable=d  # no P(sum) scores\n"
      "einsum scale_rows ij,i->ij linear=0\n"
      "alias scores attn_scores\n"
      "alias my_mm matmul\n");
  ASSERT_TRUE(LoadRulesFile(reg, path).ok());
  ASSERT_NE(reg.Find("attn_scores"), nullptr);
  EXPECT_EQ(reg.Find("scores"), reg.Find("attn_scores"));
  EXPECT_EQ(reg.Find("my_mm"), reg.Find("matmul"));
  EXPECT_EQ(reg.Find("attn_scores")->source, path + ":4");
  std::remove(path.c_str());
}

TEST(RulesFile, ErrorsNameLineAndColumnAndRegisterNothing) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"einsum a ij->i\n", ":1:1: a rules file starts with 'weft-rules 1'"},
      {"weft-rules 2\n", ":1:12: version 2 is not one this Weft reads (1)"},
      {"weft-rules 1\neinsum ok ij->i\neinsum bad \"ij,j1->i\"\n",
       ":3: einsum 'ij,j1->i': column 17"},
      {"weft-rules 1\neinsum x ij,jk->ik linear=0,5\n", ":2:29: input 5 does not exist"},
      {"weft-rules 1\neinsum x ij->i colour=red\n", ":2:16: unknown option 'colour=red'"},
      {"weft-rules 1\n  frobnicate x\n", ":2:3: unknown declaration 'frobnicate'"},
      {"weft-rules 1\nalias m nothing_here\n", "names 'nothing_here', which is not a registered"},
      {"weft-rules 1\neinsum matmul ij->i\n", "is already registered by built-in"},
      {"weft-rules 1\neinsum t \"ij->i\n", ":2:10: a '\"' that is never closed"},
      {"", ":1:1: empty"},
  };
  for (const Case& c : cases) {
    Registry reg;
    ASSERT_TRUE(RegisterBuiltins(reg).ok());
    const uint64_t gen = reg.generation();
    const std::vector<std::string> names = reg.Names();
    Status s = LoadRulesFile(reg, Write(c.text));
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    EXPECT_NE(s.message().find(c.want), std::string::npos) << c.text << " -> " << s.message();
    EXPECT_EQ(reg.generation(), gen);
    EXPECT_EQ(reg.Names(), names);
    EXPECT_EQ(reg.Find("ok"), nullptr);
  }
  Registry reg;
  Status missing = LoadRulesFile(reg, "/nonexistent/weft.rules");
  EXPECT_NE(missing.message().find("cannot be opened"), std::string::npos);
}

}  // namespace
}  // namespace weft::ops
