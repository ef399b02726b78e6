// Domain parallelism (SPEC §4): a 2-D convolution of a multi-channel image sharded unevenly
// over a 2-D mesh, forward through a halo exchange and backward w.r.t. the input through the
// halo's adjoint (weft_halo_accumulate), checked against a single-rank reference on rank 0.
//
//   weftrun -n 4 --backend gloo build/release/examples/domain_conv
//       [--size HxW] [--channels C] [--kernel k] [--stride s] [--iters n]
//
// The image is [H, W, C] (channels last), H sharded over mesh dim 0 and W over mesh dim 1. A
// halo face across dim 0 is then whole rows of the local block: one contiguous run of w*C
// floats, sent with no packing; a face across dim 1 is runs of C contiguous floats ([C, H, W]
// would make every face C strided pieces of single floats). Channels last also makes the
// inner loop of the convolution a contiguous C x C matrix-vector product.
//
// The splits are explicit and uneven: rows proportional to 1, 2, 3, ..., columns to ..., 3, 2,
// 1. The plan comes from the rules engine: weft_rules_propagate("conv2d") on the image's layout
// ([1, H, W, C] to the engine: a batch of one, channels last) says the image stays where it is,
// gives the output layout (its split derived from the input's by the convolution's windows, at
// any stride) and, through weft_strategy_input_halo, the halo descriptor: the windows each rank
// reads, with the zero padding as boundary rows. The backward is the local transposed
// convolution of grad_output into a padded-size buffer, then accumulate over the same plan:
// grad_input. The local loops and the reference are in domain_conv_kernels.hpp; this file is
// the distributed part.
#include <weft/weft.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/domain_conv_kernels.hpp"

namespace {

using domain_conv::Block;
using domain_conv::Conv;
using domain_conv::ConvForward;
using domain_conv::ConvTranspose;
using domain_conv::Error;
using domain_conv::FillBlock;
using domain_conv::kF32;
using domain_conv::Noise;
using domain_conv::ReferenceBackward;
using domain_conv::ReferenceForward;

constexpr double kTolerance = 1e-4;  // max |error| / max |reference|

void Check(weft_status_t s, const char* what) {
  if (s != WEFT_OK) {
    throw std::runtime_error(std::string(what) + ": " + weft_status_string(s) + ": " +
                             weft_last_error());
  }
}

template <auto Destroy>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Destroy(p);
  }
};
using Mesh = std::unique_ptr<weft_mesh_t, Deleter<weft_mesh_destroy>>;
using Layout = std::unique_ptr<weft_layout_t, Deleter<weft_layout_destroy>>;
using Plan = std::unique_ptr<weft_plan_t, Deleter<weft_plan_destroy>>;

struct Options {
  int64_t height = 1024, width = 1536, channels = 8, kernel = 3, stride = 1;
  int64_t iters = 5;
};

bool ParsePositive(const char* text, int64_t* out) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  *out = v;
  return end != text && *end == '\0' && v >= 1 && v <= (int64_t{1} << 31);
}

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return false;
    const std::string flag = argv[i];
    const char* v = argv[i + 1];
    bool ok = false;
    if (flag == "--size") {
      const char* x = std::strchr(v, 'x');
      ok = x != nullptr && ParsePositive(std::string(v, x).c_str(), &o->height) &&
           ParsePositive(x + 1, &o->width);
    } else if (flag == "--channels") {
      ok = ParsePositive(v, &o->channels);
    } else if (flag == "--kernel") {
      ok = ParsePositive(v, &o->kernel);
    } else if (flag == "--stride") {
      ok = ParsePositive(v, &o->stride);
    } else if (flag == "--iters") {
      ok = ParsePositive(v, &o->iters);
    }
    if (!ok) return false;
  }
  return o->kernel <= std::min(o->height, o->width);
}

// The near-square 2-D mesh of n ranks: 1 -> 1x1, 2 -> 2x1, 4 -> 2x2, 8 -> 4x2.
std::array<int64_t, 2> MeshShape(int64_t n) {
  int64_t rows = n;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0 && d * d >= n) {
      rows = d;
      break;
    }
  }
  return {rows, n / rows};
}

// `pieces` sizes summing to extent, proportional to 1, 2, ... (or the reverse).
std::vector<int64_t> RaggedSplit(int64_t extent, int64_t pieces, bool descending) {
  std::vector<int64_t> sizes;
  const int64_t total = pieces * (pieces + 1) / 2;
  int64_t weight = 0, prev = 0;
  for (int64_t i = 0; i < pieces; ++i) {
    weight += descending ? pieces - i : i + 1;
    const int64_t bound = extent * weight / total;
    sizes.push_back(bound - prev);
    prev = bound;
  }
  return sizes;
}

std::string Join(const std::vector<int64_t>& v) {
  std::string s;
  for (const int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "[" + s + "]";
}

template <size_t N>
std::string Dims(const std::array<int64_t, N>& v) {
  std::string s;
  for (const int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// The image as the rules engine sees it: a batch of one in front of [H, W, C].
std::array<int64_t, 4> Batched(const std::array<int64_t, 3>& s) { return {1, s[0], s[1], s[2]}; }

// A [rows, cols, C] block as the [1, rows, cols, C] tensor its layout describes (`shape` holds
// the extents and must outlive the view).
DLTensor Tensor4(Block& b, std::array<int64_t, 4>& shape) {
  shape = Batched(b.shape);
  return DLTensor{b.data.data(), {kDLCPU, 0}, 4, kF32, shape.data(), nullptr, 0};
}

Block LocalBlock(const weft_layout_t* layout, int32_t rank) {
  Block b;
  std::array<int64_t, 4> shape{}, offset{};
  Check(weft_layout_local_shape(layout, rank, shape.data(), offset.data()), "local shape");
  std::copy(shape.begin() + 1, shape.end(), b.shape.begin());
  std::copy(offset.begin() + 1, offset.end(), b.offset.begin());
  b.Allocate();
  return b;
}

using Rules = std::unique_ptr<weft_rules_t, Deleter<weft_rules_destroy>>;
using Strategy = std::unique_ptr<weft_strategy_t, Deleter<weft_strategy_destroy>>;

// What every rank holds: the mesh, the input and output layouts with their uneven splits, and
// the halo plan of the input, all from the conv rule's strategy.
struct Domain {
  Conv cv{};
  int32_t rank = 0, nranks = 1;
  std::array<int64_t, 2> mesh_shape{};
  std::array<int64_t, 3> in_shape{}, out_shape{};
  std::array<std::vector<int64_t>, 2> splits, out_splits;
  double cost = 0;  // the strategy's estimate: the halo exchange
  Mesh mesh;
  Layout in, out;
  Plan halo;
};

Layout MakeLayout(const Domain& dm, const std::array<int64_t, 3>& shape,
                  const std::array<std::vector<int64_t>, 2>& splits) {
  const weft_placement_t placements[2] = {WEFT_PLACEMENT_SHARD(1), WEFT_PLACEMENT_SHARD(2)};
  const int64_t* sizes[4] = {nullptr, splits[0].data(), splits[1].data(), nullptr};
  const int64_t counts[4] = {1, dm.mesh_shape[0], dm.mesh_shape[1], 1};
  weft_layout_t* layout = nullptr;
  Check(weft_layout_create_ragged(dm.mesh.get(), 4, Batched(shape).data(), kF32, placements, sizes,
                                  counts, &layout),
        "weft_layout_create_ragged");
  return Layout(layout);
}

weft_attr_t IntsAttr(const char* name, const std::vector<int64_t>& v) {
  weft_attr_t a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.name = name;
  a.kind = WEFT_ATTR_INTS;
  a.ints = v.data();
  a.n_ints = static_cast<int64_t>(v.size());
  return a;
}

// propagate("conv2d") on the image and a replicated weight: the strategy.
Strategy PropagateConv(Domain& dm) {
  const Conv& cv = dm.cv;
  const std::array<int64_t, 4> w_shape{cv.c, cv.c, cv.k, cv.k};
  const weft_placement_t replicate[2] = {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE};
  weft_layout_t* w = nullptr;
  Check(weft_layout_create(dm.mesh.get(), 4, w_shape.data(), kF32, replicate, &w),
        "weft_layout_create (weight)");
  const Layout weight(w);
  weft_rules_t* r = nullptr;
  Check(weft_rules_create(&r), "weft_rules_create");
  const Rules rules(r);
  const std::vector<int64_t> padding{cv.pad_lo, cv.pad_hi, cv.pad_lo, cv.pad_hi}, stride{cv.s};
  weft_attr_t attrs[3] = {IntsAttr("padding", padding), IntsAttr("stride", stride),
                          IntsAttr("channels_last", {})};
  attrs[2].kind = WEFT_ATTR_BOOL;
  attrs[2].i = 1;
  const weft_layout_t* inputs[2] = {dm.in.get(), weight.get()};
  weft_strategy_t* st = nullptr;
  Check(weft_rules_propagate(rules.get(), "conv2d", 2, inputs, attrs, 3, &st),
        "weft_rules_propagate (conv2d)");
  return Strategy(st);
}

Domain MakeDomain(weft_context_t* ctx, const Options& o) {
  Domain dm;
  Check(weft_context_rank(ctx, &dm.rank), "weft_context_rank");
  Check(weft_context_world_size(ctx, &dm.nranks), "weft_context_world_size");
  dm.cv = Conv{o.kernel, o.stride, o.channels, (o.kernel - 1) / 2, o.kernel / 2};
  dm.mesh_shape = MeshShape(dm.nranks);
  dm.in_shape = {o.height, o.width, o.channels};
  dm.splits = {RaggedSplit(o.height, dm.mesh_shape[0], false),
               RaggedSplit(o.width, dm.mesh_shape[1], true)};
  weft_mesh_t* mesh = nullptr;
  Check(weft_mesh_create(ctx, 2, dm.mesh_shape.data(), nullptr, &mesh), "weft_mesh_create");
  dm.mesh.reset(mesh);
  dm.in = MakeLayout(dm, dm.in_shape, dm.splits);
  const Strategy st = PropagateConv(dm);
  // The image stays where it is: the rule exchanges halos rather than gathering rows.
  weft_layout_t* l = nullptr;
  Check(weft_strategy_input_layout(st.get(), 0, &l), "weft_strategy_input_layout");
  const Layout wanted(l);
  int32_t same = 0;
  Check(weft_layout_equal(wanted.get(), dm.in.get(), &same), "weft_layout_equal");
  if (!same) throw std::runtime_error("the conv rule moves the image instead of a halo exchange");
  Check(weft_strategy_cost(st.get(), &dm.cost), "weft_strategy_cost");
  Check(weft_strategy_output_layout(st.get(), 0, &l), "weft_strategy_output_layout");
  dm.out.reset(l);
  std::array<int64_t, 4> out4{};
  Check(weft_layout_global_shape(dm.out.get(), out4.data()), "weft_layout_global_shape");
  dm.out_shape = {out4[1], out4[2], out4[3]};
  for (int32_t d = 0; d < 2; ++d) {
    int64_t count = 0;
    dm.out_splits[d].resize(static_cast<size_t>(dm.mesh_shape[d]));
    Check(weft_layout_split_sizes(dm.out.get(), d + 1, dm.out_splits[d].data(), dm.mesh_shape[d],
                                  &count),
          "weft_layout_split_sizes");
  }
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  Check(weft_strategy_input_halo(st.get(), 0, &desc), "weft_strategy_input_halo");
  weft_plan_t* plan = nullptr;
  Check(weft_halo_plan_create(dm.in.get(), &desc, nullptr, &plan), "weft_halo_plan_create");
  dm.halo.reset(plan);
  return dm;
}

// This rank's blocks: input x, its padded window, output y, and their gradients.
struct Buffers {
  Block x, padded, y, gy, gpad, gx;
};

Buffers MakeBuffers(const Domain& dm) {
  Buffers b;
  b.x = LocalBlock(dm.in.get(), dm.rank);
  b.gx = LocalBlock(dm.in.get(), dm.rank);
  b.y = LocalBlock(dm.out.get(), dm.rank);
  b.gy = LocalBlock(dm.out.get(), dm.rank);
  FillBlock(b.x, dm.in_shape, 1);
  FillBlock(b.gy, dm.out_shape, 3);
  std::array<int64_t, 4> shape{}, origin{};
  Check(weft_halo_padded_shape(dm.halo.get(), -1, shape.data(), origin.data()),
        "weft_halo_padded_shape");
  std::copy(shape.begin() + 1, shape.end(), b.padded.shape.begin());
  std::copy(origin.begin() + 1, origin.end(), b.padded.offset.begin());
  b.padded.Allocate();
  b.gpad = b.padded;
  return b;
}

void Barrier(weft_context_t* ctx) {
  Check(weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr), "weft_barrier");
}

void Exchange(const Domain& dm, Buffers& b) {
  std::array<int64_t, 4> s0{}, s1{};
  DLTensor local = Tensor4(b.x, s0), padded = Tensor4(b.padded, s1);
  Check(weft_halo_exchange(dm.halo.get(), &local, &padded, nullptr, nullptr, nullptr),
        "weft_halo_exchange");
}

void Accumulate(const Domain& dm, Buffers& b) {
  std::array<int64_t, 4> s0{}, s1{};
  DLTensor padded = Tensor4(b.gpad, s0), local = Tensor4(b.gx, s1);
  Check(weft_halo_accumulate(dm.halo.get(), &padded, &local, 0, nullptr, nullptr, nullptr),
        "weft_halo_accumulate");
}

template <class T>
void Allreduce(weft_context_t* ctx, T* data, int64_t count, DLDataType dt, int32_t op) {
  DLTensor t{data, {kDLCPU, 0}, 1, dt, &count, nullptr, 0};
  Check(weft_allreduce(ctx, nullptr, 0, &t, &t, op, nullptr, nullptr, nullptr), "weft_allreduce");
}

enum Phase { kExchange, kConv, kConvTranspose, kAccumulate, kPhases };
using Clock = std::chrono::steady_clock;

// Per phase, the median over iterations of the slowest rank's time (seconds). The exchange and
// the accumulate start after a barrier, so they do not count the uneven shards' wait.
std::array<double, kPhases> TimeSteps(weft_context_t* ctx, const Domain& dm, Buffers& b,
                                      const std::vector<float>& w, const std::vector<float>& wt,
                                      int64_t iters) {
  Exchange(dm, b);  // warm-up: the first executions check the plan across ranks
  Accumulate(dm, b);
  std::vector<double> t(static_cast<size_t>(iters * kPhases));
  const auto secs = [](Clock::time_point a, Clock::time_point z) {
    return std::chrono::duration<double>(z - a).count();
  };
  for (int64_t it = 0; it < iters; ++it) {
    double* row = t.data() + it * kPhases;
    Barrier(ctx);
    const auto t0 = Clock::now();
    Exchange(dm, b);
    const auto t1 = Clock::now();
    ConvForward(dm.cv, b.padded, w, b.y);
    const auto t2 = Clock::now();
    ConvTranspose(dm.cv, b.gy, wt, b.gpad);
    row[kExchange] = secs(t0, t1), row[kConv] = secs(t1, t2),
    row[kConvTranspose] = secs(t2, Clock::now());
    Barrier(ctx);
    const auto t3 = Clock::now();
    Accumulate(dm, b);
    row[kAccumulate] = secs(t3, Clock::now());
  }
  Allreduce(ctx, t.data(), static_cast<int64_t>(t.size()), {kDLFloat, 64, 1}, WEFT_REDUCE_MAX);
  std::array<double, kPhases> median{};
  for (int p = 0; p < kPhases; ++p) {
    std::vector<double> v;
    for (int64_t it = 0; it < iters; ++it) v.push_back(t[static_cast<size_t>(it * kPhases + p)]);
    std::sort(v.begin(), v.end());
    median[p] = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  return median;
}

// The whole tensor on rank 0: a cross-mesh redistribute onto a one-rank mesh (other ranks get
// an empty block).
Block GatherToRoot(weft_context_t* ctx, const Domain& dm, const weft_layout_t* layout, Block& local,
                   const std::array<int64_t, 3>& shape) {
  const int64_t one = 1;
  const int32_t root = 0;
  weft_mesh_t* m = nullptr;
  Check(weft_mesh_create(ctx, 1, &one, &root, &m), "weft_mesh_create (root)");
  const Mesh root_mesh(m);
  const weft_placement_t replicate[1] = {WEFT_PLACEMENT_REPLICATE};
  weft_layout_t* l = nullptr;
  Check(weft_layout_create(root_mesh.get(), 4, Batched(shape).data(), kF32, replicate, &l),
        "weft_layout_create (root)");
  const Layout root_layout(l);
  Block full;
  if (dm.rank == 0) full.shape = shape;
  full.Allocate();
  std::array<int64_t, 4> s0{}, s1{};
  DLTensor in = Tensor4(local, s0), out = Tensor4(full, s1);
  Check(weft_redistribute(layout, &in, root_layout.get(), dm.rank == 0 ? &out : nullptr, nullptr,
                          nullptr, nullptr),
        "weft_redistribute (gather)");
  return full;
}

std::string Human(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) bytes /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof(text), u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return text;
}

void Report(weft_context_t* ctx, const Domain& dm, const Error& fwd, const Error& bwd,
            const std::array<double, kPhases>& t, int64_t iters, bool ok) {
  char backend[64] = "?";
  size_t needed = 0;
  weft_context_backend_name(ctx, backend, sizeof(backend), &needed);
  weft_plan_stats_t st = WEFT_PLAN_STATS_INIT;
  Check(weft_plan_stats(dm.halo.get(), &st), "weft_plan_stats");
  int64_t bytes[2] = {st.send_bytes, st.recv_bytes};
  Allreduce(ctx, bytes, 2, {kDLInt, 64, 1}, WEFT_REDUCE_SUM);
  if (dm.rank != 0) return;
  const Conv& cv = dm.cv;
  std::printf("domain_conv: %d ranks (%s), mesh %s, image [H, W, C] %s float32, conv %" PRId64
              "x%" PRId64 " stride %" PRId64 " pad %" PRId64 "|%" PRId64 "\n",
              dm.nranks, backend, Dims(dm.mesh_shape).c_str(), Dims(dm.in_shape).c_str(), cv.k,
              cv.k, cv.s, cv.pad_lo, cv.pad_hi);
  std::printf("  input split rows %s x cols %s; output %s, rows %s x cols %s\n",
              Join(dm.splits[0]).c_str(), Join(dm.splits[1]).c_str(), Dims(dm.out_shape).c_str(),
              Join(dm.out_splits[0]).c_str(), Join(dm.out_splits[1]).c_str());
  std::printf(
      "  halo from the conv2d rule (windows per rank, zero boundary; estimated %.2f ms): %s "
      "sent, %s received per exchange, all ranks\n",
      dm.cost * 1e3, Human(bytes[0]).c_str(), Human(bytes[1]).c_str());
  std::printf(
      "  max error vs one rank: forward %.2e (rel %.1e), backward %.2e (rel %.1e): %s (tol %.0e)\n",
      fwd.abs, fwd.Relative(), bwd.abs, bwd.Relative(), ok ? "ok" : "FAILED", kTolerance);
  std::printf("  per step (median of %" PRId64
              ", slowest rank): exchange %.2f ms, conv %.1f ms, "
              "conv-transpose %.1f ms, accumulate %.2f ms\n",
              iters, t[kExchange] * 1e3, t[kConv] * 1e3, t[kConvTranspose] * 1e3,
              t[kAccumulate] * 1e3);
}

// Runs everything; returns the exit status (1 when the error exceeds the tolerance).
int Run(weft_context_t* ctx, const Options& o) {
  const Domain dm = MakeDomain(ctx, o);
  Buffers b = MakeBuffers(dm);
  const int64_t kk = dm.cv.k * dm.cv.k, c = dm.cv.c;
  std::vector<float> w(static_cast<size_t>(kk * c * c)), wt(w.size());
  for (int64_t tap = 0; tap < kk; ++tap) {
    for (int64_t ci = 0; ci < c; ++ci) {
      for (int64_t co = 0; co < c; ++co) {
        const float v = Noise(static_cast<uint64_t>((tap * c + ci) * c + co), 2);
        w[(tap * c + ci) * c + co] = v;
        wt[(tap * c + co) * c + ci] = v;
      }
    }
  }
  const std::array<double, kPhases> t = TimeSteps(ctx, dm, b, w, wt, o.iters);
  Block y = GatherToRoot(ctx, dm, dm.out.get(), b.y, dm.out_shape);
  Block gx = GatherToRoot(ctx, dm, dm.in.get(), b.gx, dm.in_shape);
  Error fwd, bwd;
  int32_t ok = 1;
  if (dm.rank == 0) {
    Block x, g;
    x.shape = dm.in_shape, g.shape = dm.out_shape;
    x.Allocate(), g.Allocate();
    FillBlock(x, dm.in_shape, 1);
    FillBlock(g, dm.out_shape, 3);
    fwd = ReferenceForward(dm.cv, x, w, y);
    bwd = ReferenceBackward(dm.cv, g, wt, gx);
    ok = fwd.Relative() <= kTolerance && bwd.Relative() <= kTolerance;
  }
  // Every rank exits with rank 0's verdict. No deadline: the others wait out the reference.
  weft_call_options_t forever = WEFT_CALL_OPTIONS_INIT;
  forever.timeout_ms = -1;
  int64_t one = 1;
  DLTensor verdict{&ok, {kDLCPU, 0}, 1, {kDLInt, 32, 1}, &one, nullptr, 0};
  Check(weft_broadcast(ctx, nullptr, 0, &verdict, 0, nullptr, &forever, nullptr), "weft_broadcast");
  Report(ctx, dm, fwd, bwd, t, o.iters, ok != 0);
  // The launcher stops every rank when one exits non-zero: none leaves before rank 0 printed.
  std::fflush(stdout);
  Barrier(ctx);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: weftrun -n N domain_conv [--size HxW] [--channels C] [--kernel k] "
                 "[--stride s] [--iters n]\n  (defaults 1024x1536, 8, 3, 1, 5; k <= H, W)\n");
    return 2;
  }
  weft_context_t* ctx = nullptr;
  if (weft_context_create(nullptr, &ctx) != WEFT_OK) {
    std::fprintf(stderr, "domain_conv: weft_context_create: %s\n", weft_last_error());
    return 1;
  }
  int status = 1;
  try {
    status = Run(ctx, o);
  } catch (const std::exception& e) {
    int32_t rank = -1;
    weft_context_rank(ctx, &rank);
    std::fprintf(stderr, "domain_conv: rank %d: %s\n", rank, e.what());
    weft_context_abort(ctx);  // wakes peers waiting on this rank
  }
  if (weft_context_destroy(ctx) != WEFT_OK) {
    std::fprintf(stderr, "domain_conv: weft_context_destroy: %s\n", weft_last_error());
    return 1;
  }
  return status;
}
