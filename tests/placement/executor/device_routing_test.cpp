// The redistribute and halo executors do every copy, fill and add of a run through the device
// operations of the buffers' device, on the caller's stream (device/README.md): with a fake
// device registered, local steps, conjugates, halo wraps, constants and the adjoint's adds all
// reach it (the host operations would refuse the fake's non-NULL stream), and the results are
// right; a device without operations fails the run with OpsFor's error before anything moves.
// One rank, abstract meshes: no communicator is needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "placement/executor/executor.hpp"
#include "placement/halo/exec/halo_executor.hpp"
#include "placement/planner/search.hpp"
#include "tests/device/fake_device_ops.hpp"

namespace weft::placement::executor {
namespace {

using device::test::FakeDeviceOps;
using device::test::ScopedRegistration;

constexpr DType kF32{kCodeFloat, 32, 1};
const device::Target kFakeTarget{{kDLExtDev, 0}, reinterpret_cast<device::Stream>(0x5eed)};

backends::OpArgs FakeArgs() {
  backends::OpArgs a;
  a.device = kFakeTarget.device;
  a.stream = kFakeTarget.stream;
  return a;
}

GroupFn NoGroups() {
  return [](const std::vector<int32_t>&) -> Result<backends::Communicator*> {
    return Internal("this test has no communicators");
  };
}

LayoutPtr Make(std::vector<int64_t> mesh, std::vector<int64_t> shape,
               std::vector<Placement> placements) {
  Mesh::Spec ms;
  ms.shape = std::move(mesh);
  Layout::Spec ls;
  ls.mesh = *Mesh::Create(ms);
  ls.shape = std::move(shape);
  ls.dtype = kF32;
  ls.placements = std::move(placements);
  return *Layout::Create(ls);
}

Box BlockOf(const Layout& l, int32_t rank) {
  Box b;
  b.ndim = l.ndim();
  l.LocalBlock(rank, b.shape.data(), b.offset.data());
  return b;
}

// x[i][j] = 10 i + j + 0.5 over a [6, 5] tensor: the value of a global index.
float X(const int64_t* g) { return static_cast<float>(10 * g[0] + g[1]) + 0.5f; }

std::vector<float> Fill(const Box& b) {
  std::vector<float> v(static_cast<size_t>(b.Volume()));
  for (int64_t i = 0; i < b.shape[0]; ++i)
    for (int64_t j = 0; j < b.shape[1]; ++j) {
      const int64_t g[2] = {b.offset[0] + i, b.offset[1] + j};
      v[static_cast<size_t>(i * b.shape[1] + j)] = X(g);
    }
  return v;
}

struct Outcome {
  Status status;
  std::vector<float> out;
};

// Redistributes src -> dst on `rank` with the buffers on `args`' device.
Outcome Redistribute(const LayoutPtr& src, const LayoutPtr& dst, int32_t rank,
                     const backends::OpArgs& args) {
  auto plan = planner::PlanRedistribute(src, dst);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  auto exec = Executor::Create(std::move(*plan), rank);
  EXPECT_TRUE(exec.ok()) << exec.status().message();
  const Box ib = BlockOf(*src, rank), ob = BlockOf(*dst, rank);
  std::vector<float> in = Fill(ib);
  Outcome r;
  r.out.assign(static_cast<size_t>(ob.Volume()), 7.0f);
  const TensorView iv = CompactView(reinterpret_cast<char*>(in.data()), ib, 4);
  const TensorView ov = CompactView(reinterpret_cast<char*>(r.out.data()), ob, 4);
  Workspace ws;
  r.status = (*exec)->Run(&iv, &ov, ws, NoGroups(), args);
  return r;
}

TEST(ExecutorDevice, LocalSliceCopiesThroughTheBuffersDevice) {
  FakeDeviceOps fake(kFakeTarget);
  ScopedRegistration reg(kDLExtDev, &fake);
  ASSERT_TRUE(reg.ok());
  const LayoutPtr r = Make({2}, {6, 5}, {Replicate{}}), s = Make({2}, {6, 5}, {Shard{0}});
  const Outcome run = Redistribute(r, s, 1, FakeArgs());
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_EQ(run.out, Fill(BlockOf(*s, 1)));
  EXPECT_GE(fake.copies, 1);
  EXPECT_EQ(fake.wrong_target, 0);
}

TEST(ExecutorDevice, ConjugateFillsTheIdentityThroughTheBuffersDevice) {
  FakeDeviceOps fake(kFakeTarget);
  ScopedRegistration reg(kDLExtDev, &fake);
  const LayoutPtr r = Make({2}, {6, 5}, {Replicate{}});
  const LayoutPtr p = Make({2}, {6, 5}, {Partial{ReduceOp::kSum}});
  const Outcome run = Redistribute(r, p, 1, FakeArgs());  // coordinate 1 holds the identity
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  for (const float v : run.out) EXPECT_TRUE(v == 0.0f && std::signbit(v)) << v;  // -0.0
  EXPECT_GE(fake.fills, 1);
  EXPECT_EQ(fake.wrong_target, 0);
}

TEST(ExecutorDevice, SameBlocksCopyThroughTheBuffersDevice) {
  FakeDeviceOps fake(kFakeTarget);
  ScopedRegistration reg(kDLExtDev, &fake);
  const LayoutPtr a = Make({1}, {6, 5}, {Shard{0}}), b = Make({1}, {6, 5}, {Shard{1}});
  const Outcome run = Redistribute(a, b, 0, FakeArgs());
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_EQ(run.out, Fill(BlockOf(*b, 0)));
  EXPECT_GE(fake.copies, 1);
  EXPECT_EQ(fake.wrong_target, 0);
}

TEST(ExecutorDevice, ADeviceWithoutOperationsFailsBeforeMovingAnything) {
  const LayoutPtr r = Make({2}, {6, 5}, {Replicate{}}), s = Make({2}, {6, 5}, {Shard{0}});
  backends::OpArgs args;
  args.device = DLDevice{kDLCUDA, 0};
  const Outcome run = Redistribute(r, s, 1, args);
  EXPECT_EQ(run.status.code(), Code::kNotAvailable) << run.status.message();
  for (const float v : run.out) EXPECT_EQ(v, 7.0f);
}

// A 1-D line of 8 float32 on one rank with one ghost row each side.
std::shared_ptr<const halo::HaloPlan> Line(halo::Boundary rule, double constant) {
  halo::HaloSpec spec;
  halo::DimSpec d;
  d.pad_lo = d.pad_hi = 1;
  d.lo_rule = d.hi_rule = rule;
  spec.dims = {d};
  spec.constant = constant;
  auto p = halo::HaloPlan::Create(Make({1}, {8}, {Shard{0}}), spec, 0);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

TEST(HaloDevice, WrapsConstantsAndAdjointAddsGoThroughTheBuffersDevice) {
  FakeDeviceOps fake(kFakeTarget);
  ScopedRegistration reg(kDLExtDev, &fake);
  for (const halo::Boundary rule : {halo::Boundary::kPeriodic, halo::Boundary::kConstant}) {
    const auto p = Line(rule, 2.5);
    const Box win = p->window(), own = p->owned();
    std::vector<float> local(8), padded(static_cast<size_t>(win.Volume()), -1.0f);
    for (int i = 0; i < 8; ++i) local[static_cast<size_t>(i)] = static_cast<float>(i) + 0.25f;
    const TensorView lv = CompactView(reinterpret_cast<char*>(local.data()), own, 4);
    const TensorView pv = CompactView(reinterpret_cast<char*>(padded.data()), win, 4);
    BatchWorkspace ws;
    const Status s = halo::RunExchange(*p, &lv, pv, ws, nullptr, FakeArgs());
    ASSERT_TRUE(s.ok()) << s.message();
    for (int64_t k = 0; k < win.shape[0]; ++k) {
      const int64_t g = win.offset[0] + k;
      const float want = g >= 0 && g < 8 ? static_cast<float>(g) + 0.25f
                         : rule == halo::Boundary::kConstant
                             ? 2.5f
                             : static_cast<float>((g + 8) % 8) + 0.25f;
      EXPECT_EQ(padded[static_cast<size_t>(k)], want) << "cell " << g;
    }
    // The adjoint: every owned cell gets the gradient of each window cell that read it.
    std::vector<float> grad(padded.size()), back(8, -1.0f);
    for (size_t k = 0; k < grad.size(); ++k) grad[k] = static_cast<float>(k + 1);
    const TensorView gv = CompactView(reinterpret_cast<char*>(grad.data()), win, 4);
    const TensorView bv = CompactView(reinterpret_cast<char*>(back.data()), own, 4);
    const Status a = halo::RunAccumulate(*p, gv, bv, /*add=*/false, ws, nullptr, FakeArgs());
    ASSERT_TRUE(a.ok()) << a.message();
    for (int64_t j = 0; j < 8; ++j) {
      float want = 0;
      for (int64_t k = 0; k < win.shape[0]; ++k) {
        const int64_t g = win.offset[0] + k;
        const bool reads = g == j || (rule == halo::Boundary::kPeriodic && (g + 8) % 8 == j);
        if (reads) want += grad[static_cast<size_t>(k)];
      }
      EXPECT_EQ(back[static_cast<size_t>(j)], want) << "owned cell " << j;
    }
  }
  EXPECT_GE(fake.copies, 2);
  EXPECT_GE(fake.fills, 1);    // the constants
  EXPECT_GE(fake.reduces, 1);  // the periodic adjoint's adds
  EXPECT_EQ(fake.wrong_target, 0);
}

}  // namespace
}  // namespace weft::placement::executor
