// Domain parallelism driven by the rules engine: a small U-Net-like network on a 2-D image
// sharded unevenly over a 2x2 mesh, forward and backward, every layout and every halo from
// weft_rules_propagate, checked against one rank.
//
//   weftrun -n 4 --backend gloo build/release/examples/domain_unet [--size HxW] [--iters n]
//
//   x [H, W, 2] -conv1 3x3-> a [H, W, 4] -max_pool 2x2-> p [H/2, W/2, 4] -conv2 3x3-> b
//   -upsample bilinear x2-> u [H, W, 4];  cat(a, u) -> c [H, W, 8] -conv3 3x3-> y [H, W, 2]
//
// Images are [1, H, W, C] to the engine (channels last). Rows are split 1 : 2 over mesh dim 0
// and columns 2 : 1 over mesh dim 1, so shards are odd-sized: the pool's windows straddle
// shards, the upsampled image comes out split otherwise than the skip connection, and the cat
// rule asks for a redistribute to line them up. For each layer the program asks propagate for
// the strategy, brings the inputs to the layouts it names (weft_redistribute when they differ),
// builds the halo plan from weft_strategy_input_halo, exchanges, and runs the local kernel
// unpadded on the padded block. Backward: each windowed layer's input gradient is its kernel's
// adjoint on the padded block, summed into the owners by weft_halo_accumulate over the same
// plan; weight gradients come out P(sum) (conv_backward_weight's strategy) and a redistribute
// to R sums them. Rank 0 runs the same kernels on the whole image (padded by hand) and
// compares. Prints, per layer, the bytes the halo brings in and the exchange / accumulate time.
#include <weft/weft.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/domain_unet_kernels.hpp"

namespace {

using domain_unet::Block;
using domain_unet::Weights;
using Clock = std::chrono::steady_clock;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr double kTolerance = 1e-4;

void Check(weft_status_t s, const std::string& what) {
  if (s != WEFT_OK)
    throw std::runtime_error(what + ": " + weft_status_string(s) + ": " + weft_last_error());
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
using Rules = std::unique_ptr<weft_rules_t, Deleter<weft_rules_destroy>>;
using Strategy = std::unique_ptr<weft_strategy_t, Deleter<weft_strategy_destroy>>;

// A [rows, cols, C] block as the [1, rows, cols, C] tensor of its layout (`s` keeps the shape).
DLTensor View(Block& b, std::array<int64_t, 4>& s) {
  s = {1, b.shape[0], b.shape[1], b.shape[2]};
  return DLTensor{b.v.data(), {kDLCPU, 0}, 4, kF32, s.data(), nullptr, 0};
}

Block LocalBlock(const weft_layout_t* l, int32_t rank) {
  std::array<int64_t, 4> shape{}, offset{};
  Check(weft_layout_local_shape(l, rank, shape.data(), offset.data()), "weft_layout_local_shape");
  return Block({shape[1], shape[2], shape[3]}, {offset[1], offset[2], offset[3]});
}

struct Attr {
  std::string name;
  std::vector<int64_t> ints;
  int64_t i = 0;
  std::string s;
  int32_t kind = WEFT_ATTR_INTS;
};

// One rank's view of the network's plumbing: mesh, rules, and the moves between layouts.
struct Net {
  weft_context_t* ctx = nullptr;
  int32_t rank = 0;
  Mesh mesh;
  Rules rules;

  Strategy Propagate(const char* op, std::vector<const weft_layout_t*> in,
                     const std::vector<Attr>& attrs) {
    std::vector<weft_attr_t> a(attrs.size());
    for (size_t k = 0; k < attrs.size(); ++k) {
      std::memset(&a[k], 0, sizeof a[k]);
      a[k].struct_size = sizeof a[k];
      a[k].name = attrs[k].name.c_str();
      a[k].kind = attrs[k].kind;
      a[k].i = attrs[k].i;
      a[k].ints = attrs[k].ints.data();
      a[k].n_ints = static_cast<int64_t>(attrs[k].ints.size());
      a[k].s = attrs[k].s.c_str();
    }
    weft_strategy_t* s = nullptr;
    Check(weft_rules_propagate(rules.get(), op, static_cast<int32_t>(in.size()), in.data(),
                               a.data(), static_cast<int32_t>(a.size()), &s),
          std::string("propagate ") + op);
    return Strategy(s);
  }
  static Layout InputLayout(const Strategy& s, int32_t i) {
    weft_layout_t* l = nullptr;
    Check(weft_strategy_input_layout(s.get(), i, &l), "weft_strategy_input_layout");
    return Layout(l);
  }
  static Layout OutputLayout(const Strategy& s) {
    weft_layout_t* l = nullptr;
    Check(weft_strategy_output_layout(s.get(), 0, &l), "weft_strategy_output_layout");
    return Layout(l);
  }
  // `b` (under `from`) moved to `to`: itself when the layouts are equal.
  Block Move(Block b, const weft_layout_t* from, const weft_layout_t* to) {
    int32_t same = 0;
    Check(weft_layout_equal(from, to, &same), "weft_layout_equal");
    if (same) return b;
    Block out = LocalBlock(to, rank);
    std::array<int64_t, 4> s0{}, s1{};
    DLTensor in = View(b, s0), o = View(out, s1);
    Check(weft_redistribute(from, &in, to, &o, nullptr, nullptr, nullptr), "weft_redistribute");
    return out;
  }
};

// A windowed layer: its strategy, the input's layout and halo plan, the output's layout, the
// padded block of the last forward, and what the halo cost.
struct Windowed {
  std::string name;
  Strategy st;
  Layout in, out;
  Plan halo;  // null: no windowed dim is cut (the kernel pads for itself)
  Block padded;
  int64_t halo_bytes = 0;
  double fwd_s = 0, bwd_s = 0;
};

// propagate(op) on the input `cur` (+ weights), the input brought to the strategy's layout,
// the halo plan made.
Windowed MakeLayer(Net& net, const char* name, const char* op, const weft_layout_t* cur,
                   const weft_layout_t* weight, const std::vector<Attr>& attrs) {
  Windowed w;
  w.name = name;
  std::vector<const weft_layout_t*> in{cur};
  if (weight != nullptr) in.push_back(weight);
  w.st = net.Propagate(op, in, attrs);
  w.in = Net::InputLayout(w.st, 0);
  w.out = Net::OutputLayout(w.st);
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  Check(weft_strategy_input_halo(w.st.get(), 0, &desc), "weft_strategy_input_halo");
  if (desc.ndims > 0) {
    weft_plan_t* p = nullptr;
    Check(weft_halo_plan_create(w.in.get(), &desc, nullptr, &p), std::string("halo ") + name);
    w.halo.reset(p);
    weft_plan_stats_t st = WEFT_PLAN_STATS_INIT;
    Check(weft_plan_stats(p, &st), "weft_plan_stats");
    w.halo_bytes = st.recv_bytes;
  }
  return w;
}

// The padded block the kernel reads: the halo exchange (timed), or the block padded by `pad`
// rows of `fill` when no dim is cut.
Block Exchange(Windowed& w, Block& x, int64_t pad, float fill) {
  if (!w.halo) return pad > 0 ? domain_unet::Pad(x, pad, fill) : x;
  std::array<int64_t, 4> shape{}, origin{};
  Check(weft_halo_padded_shape(w.halo.get(), -1, shape.data(), origin.data()), "padded shape");
  Block padded({shape[1], shape[2], shape[3]}, {origin[1], origin[2], origin[3]});
  std::array<int64_t, 4> s0{}, s1{};
  DLTensor local = View(x, s0), out = View(padded, s1);
  const auto t0 = Clock::now();
  Check(weft_halo_exchange(w.halo.get(), &local, &out, nullptr, nullptr, nullptr),
        "weft_halo_exchange " + w.name);
  w.fwd_s += std::chrono::duration<double>(Clock::now() - t0).count();
  return padded;
}

// The input gradient from the padded block's gradient: accumulate (timed), or the crop.
Block Accumulate(Windowed& w, Block& gpadded, const Block& like, int64_t pad) {
  if (!w.halo) return pad > 0 ? domain_unet::Crop(gpadded, pad) : gpadded;
  Block g(like.shape, like.offset);
  std::array<int64_t, 4> s0{}, s1{};
  DLTensor in = View(gpadded, s0), out = View(g, s1);
  const auto t0 = Clock::now();
  Check(weft_halo_accumulate(w.halo.get(), &in, &out, 0, nullptr, nullptr, nullptr),
        "weft_halo_accumulate " + w.name);
  w.bwd_s += std::chrono::duration<double>(Clock::now() - t0).count();
  return g;
}

// conv_backward_weight's strategy on (input, output gradient): the layouts must be those the
// forward used, and its P(sum) output becomes the sum on every rank through a redistribute.
Weights SumWeightGrad(Net& net, const Windowed& conv, Weights partial) {
  const std::vector<Attr> attrs{
      {"padding", {1}}, {"kernel_size", {3}}, {"channels_last", {}, 1, "", WEFT_ATTR_BOOL}};
  const Strategy st = net.Propagate("conv_backward_weight", {conv.in.get(), conv.out.get()}, attrs);
  for (int32_t i = 0; i < 2; ++i) {
    const Layout want = Net::InputLayout(st, i);
    int32_t same = 0;
    Check(weft_layout_equal(want.get(), i == 0 ? conv.in.get() : conv.out.get(), &same), "equal");
    if (!same)
      throw std::runtime_error("conv_backward_weight wants other layouts than " + conv.name);
  }
  const Layout from = Net::OutputLayout(st);
  int64_t shape[4] = {partial.co, partial.ci, 3, 3};
  const weft_placement_t repl[2] = {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE};
  weft_layout_t* r = nullptr;
  Check(weft_layout_create(net.mesh.get(), 4, shape, kF32, repl, &r), "weft_layout_create");
  const Layout to(r);
  Weights sum = partial;
  DLTensor in{partial.v.data(), {kDLCPU, 0}, 4, kF32, shape, nullptr, 0};
  DLTensor out{sum.v.data(), {kDLCPU, 0}, 4, kF32, shape, nullptr, 0};
  Check(weft_redistribute(from.get(), &in, to.get(), &out, nullptr, nullptr, nullptr),
        "weft_redistribute (weight gradient)");
  return sum;
}

Weights MakeWeights(int64_t co, int64_t ci, uint64_t salt) {
  Weights w{co, ci, std::vector<float>(static_cast<size_t>(co * ci * 9))};
  for (size_t k = 0; k < w.v.size(); ++k) w.v[k] = domain_unet::Noise(k, salt) * 0.5f;
  return w;
}

Layout WeightLayout(Net& net, const Weights& w) {
  const int64_t shape[4] = {w.co, w.ci, 3, 3};
  const weft_placement_t repl[2] = {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE};
  weft_layout_t* l = nullptr;
  Check(weft_layout_create(net.mesh.get(), 4, shape, kF32, repl, &l), "weft_layout_create");
  return Layout(l);
}

// Sizes proportional to the weights, summing to n.
std::vector<int64_t> Split(int64_t n, std::vector<int64_t> weights) {
  int64_t total = 0, acc = 0, prev = 0;
  for (int64_t w : weights) total += w;
  std::vector<int64_t> sizes;
  for (int64_t w : weights) {
    acc += w;
    sizes.push_back(n * acc / total - prev);
    prev = n * acc / total;
  }
  return sizes;
}

struct Result {
  Block y, gx;
  Weights gw1, gw2, gw3;
};

const std::vector<Attr> kConv{{"padding", {1}}, {"channels_last", {}, 1, "", WEFT_ATTR_BOOL}};

struct Params {
  Weights w1 = MakeWeights(4, 2, 11), w2 = MakeWeights(4, 4, 12), w3 = MakeWeights(2, 8, 13);
};

// What the forward keeps for the backward: every activation in the layout it was used in.
struct Activations {
  Block x, a, a_in, p, b, u, a_cat, u_cat, c;
  Layout la, lu, lc;  // cat's input and output layouts
};

// The forward on this rank's shards of x (layout lx); `L` gets the windowed layers (conv1,
// pool, conv2, up, conv3), `cat_moved` whether the cat redistributed. Returns y.
Block Forward(Net& net, const Params& prm, const weft_layout_t* lx, int64_t h, int64_t w,
              std::vector<Windowed>& L, Activations& A, bool* cat_moved) {
  using namespace domain_unet;
  const Layout lw1 = WeightLayout(net, prm.w1), lw2 = WeightLayout(net, prm.w2),
               lw3 = WeightLayout(net, prm.w3);
  const Attr channels_last{"channels_last", {}, 1, "", WEFT_ATTR_BOOL};
  L.clear();
  L.push_back(MakeLayer(net, "conv1", "conv2d", lx, lw1.get(), kConv));
  A.x = net.Move(A.x, lx, L[0].in.get());
  L[0].padded = Exchange(L[0], A.x, 1, 0.0f);
  A.a = LocalBlock(L[0].out.get(), net.rank);
  Conv(L[0].padded, prm.w1, A.a);
  L.push_back(MakeLayer(net, "pool", "max_pool2d", L[0].out.get(), nullptr,
                        {{"kernel_size", {2}}, channels_last}));
  A.a_in = net.Move(A.a, L[0].out.get(), L[1].in.get());
  L[1].padded = Exchange(L[1], A.a_in, 0, 0.0f);
  A.p = LocalBlock(L[1].out.get(), net.rank);
  MaxPool(L[1].padded, A.p);
  L.push_back(MakeLayer(net, "conv2", "conv2d", L[1].out.get(), lw2.get(), kConv));
  A.p = net.Move(A.p, L[1].out.get(), L[2].in.get());
  L[2].padded = Exchange(L[2], A.p, 1, 0.0f);
  A.b = LocalBlock(L[2].out.get(), net.rank);
  Conv(L[2].padded, prm.w2, A.b);
  L.push_back(
      MakeLayer(net, "up", "interpolate", L[2].out.get(), nullptr,
                {{"size", {h, w}}, {"mode", {}, 0, "bilinear", WEFT_ATTR_STRING}, channels_last}));
  A.b = net.Move(A.b, L[2].out.get(), L[3].in.get());
  L[3].padded = Exchange(L[3], A.b, 0, 0.0f);
  A.u = LocalBlock(L[3].out.get(), net.rank);
  Upsample(L[3].padded, A.u, h / 2, w / 2);
  // The skip connection: cat's strategy lines a and u up (one of them moves when their splits
  // differ); the backward moves the gradients back.
  const Strategy cat =
      net.Propagate("cat", {L[0].out.get(), L[3].out.get()}, {{"dim", {}, 3, "", WEFT_ATTR_INT}});
  A.la = Net::InputLayout(cat, 0), A.lu = Net::InputLayout(cat, 1), A.lc = Net::OutputLayout(cat);
  A.a_cat = net.Move(A.a, L[0].out.get(), A.la.get());
  A.u_cat = net.Move(A.u, L[3].out.get(), A.lu.get());
  int32_t same_a = 0, same_u = 0;
  Check(weft_layout_equal(A.la.get(), L[0].out.get(), &same_a), "equal");
  Check(weft_layout_equal(A.lu.get(), L[3].out.get(), &same_u), "equal");
  *cat_moved = !same_a || !same_u;
  A.c = Cat(A.a_cat, A.u_cat);
  L.push_back(MakeLayer(net, "conv3", "conv2d", A.lc.get(), lw3.get(), kConv));
  A.c = net.Move(A.c, A.lc.get(), L[4].in.get());
  L[4].padded = Exchange(L[4], A.c, 1, 0.0f);
  Block y = LocalBlock(L[4].out.get(), net.rank);
  Conv(L[4].padded, prm.w3, y);
  return y;
}

// The backward of sum(y · gy), gy from its global index: the gradients of x (in layout lx)
// and of the weights (summed over the ranks).
void Backward(Net& net, const Params& prm, const weft_layout_t* lx, int64_t h, int64_t w,
              std::vector<Windowed>& L, Activations& A, Result& r) {
  using namespace domain_unet;
  Block gy = r.y;
  FillNoise(gy, w, 21);
  Block g = L[4].padded;
  ConvInputGrad(gy, prm.w3, g);
  r.gw3 = prm.w3;
  ConvWeightGrad(L[4].padded, gy, r.gw3);
  r.gw3 = SumWeightGrad(net, L[4], r.gw3);
  Block gc = net.Move(Accumulate(L[4], g, A.c, 1), L[4].in.get(), A.lc.get());
  Block ga_cat = A.a_cat, gu_cat = A.u_cat;
  Split(gc, ga_cat, gu_cat);
  Block ga = net.Move(ga_cat, A.la.get(), L[0].out.get());
  Block gu = net.Move(gu_cat, A.lu.get(), L[3].out.get());
  g = L[3].padded;
  UpsampleGrad(gu, g, h / 2, w / 2);
  Block gb = Accumulate(L[3], g, A.b, 0);
  g = L[2].padded;
  ConvInputGrad(gb, prm.w2, g);
  r.gw2 = prm.w2;
  ConvWeightGrad(L[2].padded, gb, r.gw2);
  r.gw2 = SumWeightGrad(net, L[2], r.gw2);
  Block gp = net.Move(Accumulate(L[2], g, A.p, 1), L[2].in.get(), L[1].out.get());
  g = L[1].padded;
  MaxPoolGrad(L[1].padded, gp, g);
  Block ga2 = net.Move(Accumulate(L[1], g, A.a_in, 0), L[1].in.get(), L[0].out.get());
  for (size_t k = 0; k < ga.v.size(); ++k) ga.v[k] += ga2.v[k];
  g = L[0].padded;
  ConvInputGrad(ga, prm.w1, g);
  r.gw1 = prm.w1;
  ConvWeightGrad(L[0].padded, ga, r.gw1);
  r.gw1 = SumWeightGrad(net, L[0], r.gw1);
  r.gx = net.Move(Accumulate(L[0], g, A.x, 1), L[0].in.get(), lx);
}

// The same network on one rank: the whole image, padded by hand.
Result Reference(const Params& prm, int64_t h, int64_t w) {
  using namespace domain_unet;
  Block x({h, w, 2}, {0, 0, 0});
  FillNoise(x, w, 7);
  const Block px = Pad(x, 1, 0.0f);
  Block a({h, w, 4}, {0, 0, 0});
  Conv(px, prm.w1, a);
  Block p({h / 2, w / 2, 4}, {0, 0, 0});
  MaxPool(a, p);
  const Block pp = Pad(p, 1, 0.0f);
  Block b({h / 2, w / 2, 4}, {0, 0, 0});
  Conv(pp, prm.w2, b);
  Block u({h, w, 4}, {0, 0, 0});
  Upsample(b, u, h / 2, w / 2);
  const Block pc = Pad(Cat(a, u), 1, 0.0f);
  Result r;
  r.y = Block({h, w, 2}, {0, 0, 0});
  Conv(pc, prm.w3, r.y);
  Block gy = r.y;
  FillNoise(gy, w, 21);
  Block g = pc;
  ConvInputGrad(gy, prm.w3, g);
  r.gw3 = prm.w3;
  ConvWeightGrad(pc, gy, r.gw3);
  const Block gc = Crop(g, 1);
  Block ga = a, gu = u;
  Split(gc, ga, gu);
  Block gb = b;
  UpsampleGrad(gu, gb, h / 2, w / 2);
  g = pp;
  ConvInputGrad(gb, prm.w2, g);
  r.gw2 = prm.w2;
  ConvWeightGrad(pp, gb, r.gw2);
  const Block gp = Crop(g, 1);
  Block ga2 = a;
  MaxPoolGrad(a, gp, ga2);
  for (size_t k = 0; k < ga.v.size(); ++k) ga.v[k] += ga2.v[k];
  g = px;
  ConvInputGrad(ga, prm.w1, g);
  r.gw1 = prm.w1;
  ConvWeightGrad(px, ga, r.gw1);
  r.gx = Crop(g, 1);
  return r;
}

// The whole tensor on rank 0 (a redistribute onto a one-rank mesh); other ranks get nothing.
Block Gather(Net& net, const weft_layout_t* layout, Block& local, std::array<int64_t, 3> shape) {
  const int64_t one = 1;
  const int32_t root = 0;
  weft_mesh_t* m = nullptr;
  Check(weft_mesh_create(net.ctx, 1, &one, &root, &m), "weft_mesh_create (root)");
  const Mesh root_mesh(m);
  const weft_placement_t repl[1] = {WEFT_PLACEMENT_REPLICATE};
  const int64_t full[4] = {1, shape[0], shape[1], shape[2]};
  weft_layout_t* l = nullptr;
  Check(weft_layout_create(root_mesh.get(), 4, full, kF32, repl, &l), "weft_layout_create");
  const Layout root_layout(l);
  Block out(net.rank == 0 ? shape : std::array<int64_t, 3>{0, 0, 0}, {0, 0, 0});
  std::array<int64_t, 4> s0{}, s1{};
  DLTensor in = View(local, s0), o = View(out, s1);
  Check(weft_redistribute(layout, &in, root_layout.get(), net.rank == 0 ? &o : nullptr, nullptr,
                          nullptr, nullptr),
        "weft_redistribute (gather)");
  return out;
}

double MaxOver(Net& net, double v) {
  int64_t one = 1;
  DLTensor t{&v, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, &one, nullptr, 0};
  Check(weft_allreduce(net.ctx, nullptr, 0, &t, &t, WEFT_REDUCE_MAX, nullptr, nullptr, nullptr),
        "weft_allreduce");
  return v;
}

// Per layer (max over ranks): the bytes the halo brings in, the exchange and accumulate time;
// then the errors against one rank.
void Report(Net& net, int32_t nranks, const int64_t (&mesh_shape)[2], int64_t h, int64_t w,
            const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
            std::vector<Windowed>& layers, int64_t iters, bool cat_moved, const double (&errors)[5],
            int32_t ok) {
  std::vector<double> fwd, bwd, bytes;
  for (Windowed& layer : layers) {
    fwd.push_back(MaxOver(net, layer.fwd_s / static_cast<double>(iters)));
    bwd.push_back(MaxOver(net, layer.bwd_s / static_cast<double>(iters)));
    bytes.push_back(MaxOver(net, static_cast<double>(layer.halo_bytes)));
  }
  if (net.rank == 0) {
    std::printf("domain_unet: %d ranks, mesh %" PRId64 "x%" PRId64 ", image %" PRId64 "x%" PRId64
                ", rows %s, cols %s\n",
                nranks, mesh_shape[0], mesh_shape[1], h, w,
                ("[" + std::to_string(rows[0]) +
                 (rows.size() > 1 ? ", " + std::to_string(rows[1]) : "") + "]")
                    .c_str(),
                ("[" + std::to_string(cols[0]) +
                 (cols.size() > 1 ? ", " + std::to_string(cols[1]) : "") + "]")
                    .c_str());
    std::printf("  %-6s %14s %16s %16s\n", "layer", "halo in (B)", "exchange (ms)",
                "accumulate (ms)");
    for (size_t k = 0; k < layers.size(); ++k)
      std::printf("  %-6s %14.0f %16.3f %16.3f\n", layers[k].name.c_str(), bytes[k], fwd[k] * 1e3,
                  bwd[k] * 1e3);
    std::printf("  skip connection: cat %s\n",
                cat_moved ? "redistributed one input to line up the splits" : "needed no move");
    std::printf(
        "  max relative error vs one rank: y %.1e, grad x %.1e, grad w1 %.1e, w2 %.1e, "
        "w3 %.1e: %s (tol %.0e)\n",
        errors[0], errors[1], errors[2], errors[3], errors[4], ok ? "ok" : "FAILED", kTolerance);
  }
}

int Run(weft_context_t* ctx, int64_t h, int64_t w, int64_t iters) {
  Net net;
  net.ctx = ctx;
  int32_t nranks = 1;
  Check(weft_context_rank(ctx, &net.rank), "weft_context_rank");
  Check(weft_context_world_size(ctx, &nranks), "weft_context_world_size");
  const int64_t mesh_shape[2] = {nranks >= 4 ? 2 : 1, nranks >= 4 ? nranks / 2 : nranks};
  weft_mesh_t* m = nullptr;
  Check(weft_mesh_create(ctx, 2, mesh_shape, nullptr, &m), "weft_mesh_create");
  net.mesh.reset(m);
  weft_rules_t* r = nullptr;
  Check(weft_rules_create(&r), "weft_rules_create");
  net.rules.reset(r);
  std::vector<int64_t> weights0, weights1;
  for (int64_t k = 1; k <= mesh_shape[0]; ++k) weights0.push_back(k);
  for (int64_t k = mesh_shape[1]; k >= 1; --k) weights1.push_back(k);
  const std::vector<int64_t> rows = Split(h, weights0), cols = Split(w, weights1);
  const int64_t shape[4] = {1, h, w, 2};
  const int64_t* sizes[4] = {nullptr, rows.data(), cols.data(), nullptr};
  const int64_t counts[4] = {1, mesh_shape[0], mesh_shape[1], 1};
  const weft_placement_t split[2] = {WEFT_PLACEMENT_SHARD(1), WEFT_PLACEMENT_SHARD(2)};
  weft_layout_t* l = nullptr;
  Check(weft_layout_create_ragged(net.mesh.get(), 4, shape, kF32, split, sizes, counts, &l),
        "weft_layout_create_ragged");
  const Layout lx(l);
  Block x = LocalBlock(lx.get(), net.rank);
  domain_unet::FillNoise(x, w, 7);
  const Params prm;
  std::vector<Windowed> layers;
  bool cat_moved = false;
  Result res;
  for (int64_t it = 0; it < iters; ++it) {
    Activations act;
    act.x = x;
    res.y = Forward(net, prm, lx.get(), h, w, layers, act, &cat_moved);
    Backward(net, prm, lx.get(), h, w, layers, act, res);
  }
  Block y = Gather(net, layers[4].out.get(), res.y, {h, w, 2});
  Block gx = Gather(net, lx.get(), res.gx, {h, w, 2});
  int32_t ok = 1;
  double errors[5] = {};
  if (net.rank == 0) {
    const Result ref = Reference(prm, h, w);
    errors[0] = domain_unet::RelativeError(y.v, ref.y.v);
    errors[1] = domain_unet::RelativeError(gx.v, ref.gx.v);
    errors[2] = domain_unet::RelativeError(res.gw1.v, ref.gw1.v);
    errors[3] = domain_unet::RelativeError(res.gw2.v, ref.gw2.v);
    errors[4] = domain_unet::RelativeError(res.gw3.v, ref.gw3.v);
    for (double e : errors) ok = ok && e <= kTolerance;
  }
  weft_call_options_t forever = WEFT_CALL_OPTIONS_INIT;
  forever.timeout_ms = -1;
  int64_t one = 1;
  DLTensor verdict{&ok, {kDLCPU, 0}, 1, {kDLInt, 32, 1}, &one, nullptr, 0};
  Check(weft_broadcast(ctx, nullptr, 0, &verdict, 0, nullptr, &forever, nullptr), "weft_broadcast");
  Report(net, nranks, mesh_shape, h, w, rows, cols, layers, iters, cat_moved, errors, ok);
  std::fflush(stdout);
  Check(weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr), "weft_barrier");
  return ok ? 0 : 1;
}

bool Positive(const char* text, int64_t* out) {
  char* end = nullptr;
  *out = std::strtoll(text, &end, 10);
  return end != text && *end == '\0' && *out >= 1 && *out <= (int64_t{1} << 20);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t h = 60, w = 44, iters = 1;
  bool ok = true;
  for (int i = 1; i < argc && ok; i += 2) {
    if (i + 1 >= argc) {
      ok = false;
    } else if (std::strcmp(argv[i], "--size") == 0) {
      const char* x = std::strchr(argv[i + 1], 'x');
      ok = x != nullptr &&
           Positive(std::string(argv[i + 1], static_cast<size_t>(x - argv[i + 1])).c_str(), &h) &&
           Positive(x + 1, &w);
    } else if (std::strcmp(argv[i], "--iters") == 0) {
      ok = Positive(argv[i + 1], &iters);
    } else {
      ok = false;
    }
  }
  if (!ok || h % 2 != 0 || w % 2 != 0 || h < 4 || w < 4) {
    std::fprintf(stderr,
                 "usage: weftrun -n N domain_unet [--size HxW] [--iters n]\n"
                 "  (defaults 60x44, 1; H and W even, >= 4)\n");
    return 2;
  }
  weft_context_t* ctx = nullptr;
  if (weft_context_create(nullptr, &ctx) != WEFT_OK) {
    std::fprintf(stderr, "domain_unet: weft_context_create: %s\n", weft_last_error());
    return 1;
  }
  int status = 1;
  try {
    status = Run(ctx, h, w, iters);
  } catch (const std::exception& e) {
    int32_t rank = -1;
    weft_context_rank(ctx, &rank);
    std::fprintf(stderr, "domain_unet: rank %d: %s\n", rank, e.what());
    weft_context_abort(ctx);
  }
  if (weft_context_destroy(ctx) != WEFT_OK) return 1;
  return status;
}
