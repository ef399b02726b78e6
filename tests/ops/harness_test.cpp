// The validation harness itself (ops/check): its cutting and reassembling of tensors is exact,
// and it catches rules that lie — a Partial passed through a nonlinear op, an output layout
// that does not match what the local kernels compute.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/check/cases.hpp"
#include "ops/check/harness.hpp"
#include "ops/rules/builtin.hpp"

namespace weft::ops::check {
namespace {

const DType kF64{kCodeFloat, 64, 1};

DenseTensor Iota(std::vector<int64_t> shape) {
  DenseTensor t{std::move(shape), {}};
  int64_t n = 1;
  for (int64_t e : t.shape) n *= e;
  for (int64_t k = 0; k < n; ++k) t.values.push_back(static_cast<double>(k % 7 - 3));
  return t;
}

TEST(Harness, DistributeThenAssembleIsExactOnRandomLayouts) {
  Rng rng(7);
  for (int k = 0; k < 300; ++k) {
    const placement::MeshPtr mesh = RandomMesh(rng);
    const TensorInfo info{{1 + int64_t(rng() % 5), int64_t(rng() % 4)}, kF64};
    const DenseTensor x = Iota(info.shape);
    const placement::LayoutPtr l = RandomLayout(mesh, info, true, rng);
    std::vector<DenseTensor> blocks;
    for (RankBlock& b : Distribute(x, *l, rng)) blocks.push_back(std::move(b.block));
    auto back = Assemble(blocks, *l, 0);
    ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << l->Describe();
    EXPECT_EQ(FirstDifference(*back, x, 0), "") << l->Describe();
  }
}

// An identity op whose rule is wrong in the way `lie` says; its kernel is right.
OpDef Liar(const std::string& lie) {
  OpDef op;
  op.name = "liar";
  op.rule = [lie](std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
    r->outputs.push_back(in[0]);
    r->strategies.push_back(Replicated(2));
    using C = PlacementCode;
    if (lie == "partial") r->strategies.push_back({{C::P(ReduceOp::kSum), C::P(ReduceOp::kSum)}});
    if (lie == "dim") r->strategies.push_back({{C::S(0), C::S(1)}});
    return Status::Ok();
  };
  // relu for "partial" (relu of a partial sum is not the sum of relus), identity for "dim".
  op.kernel = [lie](const KernelCall& call, std::vector<DenseTensor>* out) {
    out->assign(1, call.inputs[0]);
    if (lie == "partial")
      for (double& v : (*out)[0].values) v = v > 0 ? v : 0;
    if (!call.output_shapes.empty()) (*out)[0].shape = call.output_shapes[0];
    if ((*out)[0].shape != call.inputs[0].shape) return InvalidArgument("shapes differ");
    return Status::Ok();
  };
  return op;
}

TEST(Harness, CatchesRulesThatLie) {
  for (const std::string lie : {"partial", "dim"}) {
    Registry reg;
    ASSERT_TRUE(reg.Add(Liar(lie)).ok());
    Engine engine(reg);
    Rng rng(3);
    Case c{"liar", {{{4, 4}, kF64}}, {Iota({4, 4})}, {}, 0, {false}};
    const CaseResult r = CheckCase(engine, *reg.Find("liar"), c, 20, rng);
    EXPECT_FALSE(r.failure.empty()) << lie << ": " << r.candidates << " candidates passed";
    EXPECT_NE(r.failure.find("strategy liar"), std::string::npos) << r.failure;
  }
}

// A kernel with its own communication: the row sums of x [n, m] sharded by rows, every rank
// all-gathering the others' partial sums over the mesh dim (threads, one a rank).
TEST(Harness, KernelsThatAllGatherMeetTheirGroup) {
  OpDef op;
  op.name = "colsum";
  op.rule = [](std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
    r->outputs.push_back({{in[0].shape[1]}, in[0].dtype});
    r->strategies.push_back(Replicated(2));
    r->strategies.push_back({{PlacementCode::S(0), PlacementCode::R()}});
    return Status::Ok();
  };
  op.kernel = [](const KernelCall& call, std::vector<DenseTensor>* out) {
    const DenseTensor& x = call.inputs[0];
    DenseTensor mine{{x.shape[1]}, std::vector<double>(static_cast<size_t>(x.shape[1]), 0)};
    for (size_t k = 0; k < x.values.size(); ++k) mine.values[k % mine.values.size()] += x.values[k];
    out->assign(1, mine);
    if (call.input_layouts.empty() || !placement::IsShard(call.input_layouts[0]->placements()[0]))
      return Status::Ok();
    WEFT_ASSIGN_OR_RETURN(std::vector<DenseTensor> all, call.all_gather(0, mine));
    for (double& v : (*out)[0].values) v = 0;
    for (const DenseTensor& t : all)
      for (size_t j = 0; j < t.values.size(); ++j) (*out)[0].values[j] += t.values[j];
    return Status::Ok();
  };
  Registry reg;
  ASSERT_TRUE(reg.Add(op).ok());
  Engine engine(reg);
  placement::Mesh::Spec ms;
  ms.shape = {3};
  auto mesh = *placement::Mesh::Create(ms);
  auto x = *placement::Layout::Create({mesh, {5, 2}, kF64, {placement::Shard{0}}, {}});
  auto s = engine.Propagate("colsum", std::vector<placement::LayoutPtr>{x}, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(placement::IsShard((*s)->inputs[0]->placements()[0]));  // no move: sharded kept
  const std::vector<TensorInfo> infos{{{5, 2}, kF64}};
  Rng rng(1);
  auto got = RunStrategy(*reg.Find("colsum"), **s, infos, {Iota({5, 2})}, {}, 0, rng);
  ASSERT_TRUE(got.ok()) << got.status().message();
  DenseTensor want{{2}, {0, 0}};
  const DenseTensor x_values = Iota({5, 2});
  for (size_t k = 0; k < x_values.values.size(); ++k) want.values[k % 2] += x_values.values[k];
  EXPECT_EQ(FirstDifference((*got)[0], want, 0), "");
}

TEST(Harness, EveryFamilyOperatorHasAKernelAndAGenerator) {
  Registry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  Rng rng(1);
  for (const Family& f : Families()) {
    if (!f.plugin.empty()) continue;
    for (const std::string& op : f.ops) {
      const OpDef* def = reg.Find(op);
      ASSERT_NE(def, nullptr) << op;
      EXPECT_TRUE(def->kernel) << op;
      EXPECT_TRUE(MakeCase(op, rng).ok()) << op;
    }
  }
}

}  // namespace
}  // namespace weft::ops::check
