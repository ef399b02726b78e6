// Rule plugins loaded at run time: the aten aliases, the scientific operators (propagate and
// their kernels), and every way a plugin can be bad — refused with a clear error, the registry
// unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/engine/engine.hpp"
#include "ops/plugin/rules_plugin.hpp"
#include "ops/rules/builtin.hpp"
#include "tests/ops/engine_fixture.hpp"

namespace weft::ops {
namespace {

using namespace weft::ops::testing;  // NOLINT(google-build-using-namespace)

const std::string kDir = WEFT_TEST_PLUGIN_DIR;
const std::string kBadDir = WEFT_TEST_BAD_PLUGIN_DIR;

class PluginTest : public EngineFixture {};

TEST_F(PluginTest, AtenNamesAreAliasesOfTheBuiltins) {
  Status s = LoadRulesPlugin(registry_, kDir + "/libweft-rules-aten.so");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(registry_.Find("aten.mm.default"), registry_.Find("matmul"));
  EXPECT_EQ(registry_.Find("aten.add.Tensor"), registry_.Find("add"));
  auto mesh = Mesh({2});
  auto a = Make(mesh, {4, 6}, {S(1)}), b = Make(mesh, {6, 8}, {S(0)});
  auto st = engine_.Propagate("aten.mm.default", std::vector<LayoutPtr>{a, b}, {});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ((*st)->op, "matmul");
  EXPECT_TRUE((*st)->outputs[0]->SameAs(*Make(mesh, {4, 8}, {P()})));
  // A second load would register every name again: refused whole.
  const uint64_t gen = registry_.generation();
  Status again = LoadRulesPlugin(registry_, kDir + "/libweft-rules-aten.so");
  EXPECT_EQ(again.code(), Code::kInvalidArgument);
  EXPECT_NE(again.message().find("already an alias"), std::string::npos) << again.message();
  EXPECT_EQ(registry_.generation(), gen);
}

TEST_F(PluginTest, ByNameOnWeftRulesPath) {
  setenv("WEFT_RULES_PATH", ("/nonexistent:" + kDir).c_str(), 1);
  Status s = LoadRulesPlugin(registry_, "scientific");
  unsetenv("WEFT_RULES_PATH");
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_NE(registry_.Find("fft"), nullptr);
  EXPECT_NE(registry_.Find("fft")->source.find("rule plugin scientific"), std::string::npos);
  Status missing = LoadRulesPlugin(registry_, "no_such_rules");
  EXPECT_EQ(missing.code(), Code::kNotAvailable);
  EXPECT_NE(missing.message().find("libweft-rules-no_such_rules.so"), std::string::npos);
}

TEST_F(PluginTest, FftOfAShardedDimPlansTheTranspose) {
  ASSERT_TRUE(LoadRulesPlugin(registry_, kDir + "/libweft-rules-scientific.so").ok());
  auto mesh = Mesh({4});
  auto x = Make(mesh, {8, 16, 2}, {S(0)});
  Attributes attrs;
  ASSERT_TRUE(attrs.Set("dim", int64_t{0}).ok());
  auto st = engine_.Propagate("fft", std::vector<LayoutPtr>{x}, attrs);
  ASSERT_TRUE(st.ok()) << st.status().message();
  CheckAgainstEnumeration("fft", {x}, attrs, **st);
  EXPECT_TRUE((*st)->inputs[0]->SameAs(*Make(mesh, {8, 16, 2}, {S(1)}))) << (*st)->Describe();
  EXPECT_TRUE((*st)->outputs[0]->SameAs(*Make(mesh, {8, 16, 2}, {S(1)})));
  EXPECT_GT((*st)->cost, 0);
  // Sharded elsewhere already: nothing moves. Partial passes (the transform is linear).
  auto y = Make(mesh, {8, 16, 2}, {P()});
  auto same = engine_.Propagate("fft", std::vector<LayoutPtr>{y}, attrs);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)->cost, 0);
  Attributes bad;
  ASSERT_TRUE(bad.Set("dim", int64_t{2}).ok());
  auto refused = engine_.Propagate("fft", std::vector<LayoutPtr>{x}, bad);
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("fft: dim 2 is not a complex dim"), std::string::npos)
      << refused.status().message();
}

std::vector<DenseTensor> RunKernel(const OpDef& op, std::vector<DenseTensor> in,
                                   const Attributes& attrs) {
  std::vector<std::vector<int64_t>> shapes{in[0].shape}, offsets{{0, 0, 0}};
  KernelCall call;
  call.inputs = in;
  call.output_shapes = shapes;
  call.input_offsets = offsets;
  call.attrs = &attrs;
  std::vector<DenseTensor> out;
  Status s = op.kernel(call, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST_F(PluginTest, ScientificKernels) {
  ASSERT_TRUE(LoadRulesPlugin(registry_, kDir + "/libweft-rules-scientific.so").ok());
  Attributes dim0;
  ASSERT_TRUE(dim0.Set("dim", int64_t{0}).ok());
  // The DFT of a unit impulse is all ones; of a constant, n at frequency 0.
  auto f = RunKernel(*registry_.Find("fft"), {{{4, 2}, {1, 0, 0, 0, 0, 0, 0, 0}}}, dim0);
  ASSERT_EQ(f.size(), 1u);
  const std::vector<double> ones{1, 0, 1, 0, 1, 0, 1, 0};
  for (size_t i = 0; i < ones.size(); ++i) EXPECT_NEAR(f[0].values[i], ones[i], 1e-12);
  auto g = RunKernel(*registry_.Find("fft"), {{{4, 2}, {1, 0, 1, 0, 1, 0, 1, 0}}}, dim0);
  EXPECT_NEAR(g[0].values[0], 4, 1e-12);
  EXPECT_NEAR(g[0].values[2], 0, 1e-12);
  Attributes st = dim0;
  ASSERT_TRUE(st.Set("weights", std::vector<int64_t>{1, -2, 1}).ok());
  auto h = RunKernel(*registry_.Find("stencil"), {{{5}, {0, 1, 4, 9, 16}}}, st);
  EXPECT_EQ(h[0].values, (std::vector<double>{1, 2, 2, 2, -23}));  // second differences
}

TEST_F(PluginTest, BadPluginsAreRefusedAndChangeNothing) {
  struct Case {
    const char* stem;
    Code code;
    const char* want;
  } cases[] = {
      {"no_entry", Code::kPlugin, "weft_rules_plugin_v"},
      {"major", Code::kVersionMismatch, "ABI v2"},
      {"fails", Code::kPlugin, "gave up half way"},
  };
  for (const Case& c : cases) {
    const uint64_t gen = registry_.generation();
    Status s = LoadRulesPlugin(registry_, kBadDir + "/libweft_bad_rules_" + c.stem + ".so");
    EXPECT_EQ(s.code(), c.code) << c.stem << ": " << s.message();
    EXPECT_NE(s.message().find(c.want), std::string::npos) << c.stem << ": " << s.message();
    EXPECT_EQ(registry_.generation(), gen);
    EXPECT_EQ(registry_.Find("bad_op"), nullptr);
  }
}

TEST_F(PluginTest, ThrowingOrLyingRulesFailThePropagate) {
  auto mesh = Mesh({2});
  auto x = Make(mesh, {4, 6}, {R});
  for (const char* stem : {"throws", "garbage"}) {
    Registry reg;
    ASSERT_TRUE(
        LoadRulesPlugin(reg, kBadDir + "/libweft_bad_rules_" + std::string(stem) + ".so").ok());
    Engine engine(reg);
    auto st = engine.Propagate("bad_op", std::vector<LayoutPtr>{x}, {});
    ASSERT_FALSE(st.ok()) << stem;
    const std::string& m = st.status().message();
    EXPECT_NE(m.find("bad_op"), std::string::npos) << m;
    EXPECT_NE(m.find("rule plugin bad"), std::string::npos) << m;
    EXPECT_EQ(st.status().code(), std::string(stem) == "throws" ? Code::kPlugin : Code::kInternal)
        << m;
  }
}

}  // namespace
}  // namespace weft::ops
