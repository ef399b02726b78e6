// tp_mlp: a two-layer MLP, forward and backward, on a 2x2 mesh (data parallel x tensor
// parallel) where every layout decision comes from weft_rules_propagate and every move from a
// redistribute plan (docs/design/rules.md; issue 22 item 7).
//
//   h = linear(x, W1)   x [B,D] sharded by rows on mesh dim 0 (data parallel); W1 [H,D]
//                       column-parallel on mesh dim 1 (tensor parallel)
//   a = gelu(h)
//   y = linear(a, W2)   W2 [O,H] row-parallel: y comes out Partial(sum) on mesh dim 1
//   loss = sum(y)
//   backward: dy = ones, dW2 = dy^T a, da = dy W2, dh = da * gelu'(h), dW1 = dh^T x, dx = dh W1
//
// The framework part is what this file does by hand: for each operator it asks propagate for
// a strategy, brings each input to the strategy's layout (a redistribute plan, or nothing when
// the input is there already), runs its local kernel on the local blocks, and carries the
// strategy's output layout on. Rank 0 prints each step's communication. Every rank then gathers
// the loss and the gradients and compares them with one process's result (exit 1 on a
// mismatch). Run: weftrun -n 4 build/.../examples/tp_mlp
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tp_mlp_math.hpp"
#include "weft/weft.h"

namespace {

using tp_mlp::Dense;

void Check(weft_status_t s, const char* what) {
  if (s != WEFT_OK)
    throw std::runtime_error(std::string(what) + ": " + weft_status_string(s) + ": " +
                             weft_last_error());
}

template <auto Destroy>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Destroy(p);
  }
};
using Layout = std::shared_ptr<weft_layout_t>;
using Strategy = std::unique_ptr<weft_strategy_t, Deleter<weft_strategy_destroy>>;
using Plan = std::unique_ptr<weft_plan_t, Deleter<weft_plan_destroy>>;

Layout Own(weft_layout_t* l) {
  return Layout(l, [](weft_layout_t* p) { weft_layout_destroy(p); });
}

constexpr DLDataType kF32{kDLFloat, 32, 1};

// A distributed tensor as a framework holds one: its layout and this rank's block.
struct Tensor {
  Layout layout;
  Dense local;
};

std::string Placements(const weft_layout_t* l) {
  weft_placement_t p[2];
  Check(weft_layout_placements(l, p), "weft_layout_placements");
  std::string out;
  for (const weft_placement_t& q : p) {
    if (!out.empty()) out += ",";
    out += q.kind == WEFT_REPLICATE ? "R"
           : q.kind == WEFT_SHARD   ? "S(" + std::to_string(q.dim) + ")"
                                    : "P(sum)";
  }
  return "[" + out + "]";
}

class Program {
 public:
  Program(weft_context_t* ctx, weft_mesh_t* mesh, weft_rules_t* rules)
      : ctx_(ctx), mesh_(mesh), rules_(rules) {
    Check(weft_context_rank(ctx, &rank_), "weft_context_rank");
  }

  // A tensor of `shape` in `placements`, its block filled from f(global index).
  Tensor Make(std::vector<int64_t> shape, std::vector<weft_placement_t> placements,
              double (*f)(int64_t, int64_t)) {
    weft_layout_t* l = nullptr;
    Check(weft_layout_create(mesh_, static_cast<int32_t>(shape.size()), shape.data(), kF32,
                             placements.data(), &l),
          "weft_layout_create");
    Tensor t{Own(l), {}};
    int64_t off[2] = {0, 0};
    t.local.shape.assign(shape.size(), 0);
    Check(weft_layout_local_shape(l, rank_, t.local.shape.data(), off), "local shape");
    t.local.values.resize(static_cast<size_t>(t.local.numel()));
    for (int64_t i = 0; i < t.local.shape[0]; ++i)
      for (int64_t j = 0; j < (shape.size() > 1 ? t.local.shape[1] : 1); ++j)
        t.local.at(i, j) = static_cast<float>(f(i + off[0], j + off[1]));
    return t;
  }

  // One operator: the strategy, the inputs brought to it, the local kernel, the output.
  Tensor Apply(
      const char* step, const char* op, std::vector<const Tensor*> in, const char* equation,
      const std::function<Dense(std::vector<const Dense*>, std::vector<int64_t>)>& kernel) {
    std::vector<const weft_layout_t*> layouts;
    for (const Tensor* t : in) layouts.push_back(t->layout.get());
    weft_attr_t attr{};
    attr.struct_size = sizeof attr;
    attr.name = "equation";
    attr.kind = WEFT_ATTR_STRING;
    attr.s = equation;
    weft_strategy_t* raw = nullptr;
    Check(weft_rules_propagate(rules_, op, static_cast<int32_t>(in.size()), layouts.data(),
                               equation ? &attr : nullptr, equation ? 1 : 0, &raw),
          op);
    Strategy s(raw);
    std::vector<Tensor> moved;
    std::vector<const Dense*> blocks;
    std::string moves;
    for (size_t i = 0; i < in.size(); ++i) {
      weft_layout_t* want = nullptr;
      Check(weft_strategy_input_layout(s.get(), static_cast<int32_t>(i), &want), "input layout");
      moved.push_back(Move(*in[i], Own(want), &moves));
    }
    for (const Tensor& t : moved) blocks.push_back(&t.local);
    weft_layout_t* out_layout = nullptr;
    Check(weft_strategy_output_layout(s.get(), 0, &out_layout), "output layout");
    Tensor out{Own(out_layout), {}};
    out.local = kernel(blocks, LocalShape(out.layout.get()));
    Report(step, op, moves.empty() ? "none" : moves, Placements(out.layout.get()));
    return out;
  }

  // `t` in layout `to`: nothing when it is there already, else a redistribute plan.
  Tensor Move(const Tensor& t, Layout to, std::string* log) {
    int32_t equal = 0;
    Check(weft_layout_equal(t.layout.get(), to.get(), &equal), "weft_layout_equal");
    if (equal) return {to, t.local};
    weft_plan_t* raw = nullptr;
    Check(weft_redistribute_plan_create(t.layout.get(), to.get(), nullptr, &raw), "plan");
    Plan plan(raw);
    Tensor out{to, {LocalShape(to.get()), {}}};
    out.local.values.resize(static_cast<size_t>(out.local.numel()));
    DLTensor src = t.local.Tensor(), dst = out.local.Tensor();
    Check(weft_plan_execute(plan.get(), &src, &dst, nullptr, nullptr, nullptr), "execute");
    weft_plan_stats_t st = WEFT_PLAN_STATS_INIT;
    Check(weft_plan_stats(plan.get(), &st), "weft_plan_stats");
    *log += (log->empty() ? "" : "; ") + Placements(t.layout.get()) + " -> " +
            Placements(to.get()) + " (" + std::to_string(st.send_bytes) + " B sent)";
    return out;
  }

  // Every rank's full copy of `t`, for the check.
  Dense Gather(const Tensor& t) {
    const weft_placement_t rr[2] = {WEFT_PLACEMENT_REPLICATE, WEFT_PLACEMENT_REPLICATE};
    int32_t ndim = 0;
    int64_t shape[2] = {1, 1};
    Check(weft_layout_ndim(t.layout.get(), &ndim), "ndim");
    Check(weft_layout_global_shape(t.layout.get(), shape), "shape");
    weft_layout_t* l = nullptr;
    Check(weft_layout_create(mesh_, ndim, shape, kF32, rr, &l), "replicated layout");
    std::string ignored;
    return Move(t, Own(l), &ignored).local;
  }

  void Report(const char* step, const char* op, const std::string& moves,
              const std::string& out) const {
    if (rank_ == 0)
      std::printf("%-6s %-8s inputs moved: %-44s output %s\n", step, op, moves.c_str(),
                  out.c_str());
  }

  int32_t rank() const { return rank_; }

 private:
  std::vector<int64_t> LocalShape(const weft_layout_t* l) const {
    int32_t ndim = 0;
    Check(weft_layout_ndim(l, &ndim), "ndim");
    std::vector<int64_t> shape(static_cast<size_t>(ndim)), off(static_cast<size_t>(ndim));
    Check(weft_layout_local_shape(l, rank_, shape.data(), off.data()), "local shape");
    return shape;
  }

  weft_context_t* ctx_;
  weft_mesh_t* mesh_;
  weft_rules_t* rules_;
  int32_t rank_ = 0;
};

double X(int64_t b, int64_t d) { return std::sin(0.3 * b + 0.7 * d); }
double W1(int64_t h, int64_t d) { return 0.2 * std::cos(0.5 * h - 0.3 * d); }
double W2(int64_t o, int64_t h) { return 0.15 * std::sin(0.4 * o + 0.9 * h + 0.1); }
double One(int64_t, int64_t) { return 1.0; }

int Main(weft_context_t* ctx) {
  using tp_mlp::Einsum;
  const int64_t B = 8, D = 12, H = 16, O = 6, mesh_shape[2] = {2, 2};
  weft_mesh_t* mesh = nullptr;  // mesh dim 0: data parallel, 1: tensor parallel
  Check(weft_mesh_create(ctx, 2, mesh_shape, nullptr, &mesh), "weft_mesh_create (run with -n 4)");
  std::unique_ptr<weft_mesh_t, Deleter<weft_mesh_destroy>> mesh_owner(mesh);
  weft_rules_t* rules = nullptr;
  Check(weft_rules_create(&rules), "weft_rules_create");
  std::unique_ptr<weft_rules_t, Deleter<weft_rules_destroy>> rules_owner(rules);
  Check(weft_rules_attach(rules, ctx), "weft_rules_attach");
  Program p(ctx, mesh, rules);
  const weft_placement_t R = WEFT_PLACEMENT_REPLICATE, S0 = WEFT_PLACEMENT_SHARD(0),
                         S1 = WEFT_PLACEMENT_SHARD(1);
  const Tensor x = p.Make({B, D}, {S0, R}, X);    // batch over dp
  const Tensor w1 = p.Make({H, D}, {R, S0}, W1);  // column-parallel: out features over tp
  const Tensor w2 = p.Make({O, H}, {R, S1}, W2);  // row-parallel: in features over tp
  auto einsum = [](const char* eq) {
    return [eq](std::vector<const Dense*> in, std::vector<int64_t> shape) {
      return Einsum(eq, in, shape);
    };
  };
  if (p.rank() == 0) std::printf("forward\n");
  const Tensor h = p.Apply("h", "linear", {&x, &w1}, nullptr, einsum("bd,hd->bh"));
  const Tensor a = p.Apply("a", "gelu", {&h}, nullptr, tp_mlp::Map(tp_mlp::Gelu));
  const Tensor y = p.Apply("y", "linear", {&a, &w2}, nullptr, einsum("bh,oh->bo"));
  const Tensor loss = p.Apply("loss", "sum", {&y}, nullptr, einsum("bo->"));
  if (p.rank() == 0) std::printf("backward\n");
  // d loss / d y: ones wherever y is, Replicate where y is Partial (the adjoint of a sum).
  const Tensor dy = p.Make({B, O}, {S0, R}, One);
  Tensor dw2 = p.Apply("dW2", "einsum", {&dy, &a}, "bo,bh->oh", einsum("bo,bh->oh"));
  const Tensor da = p.Apply("da", "einsum", {&dy, &w2}, "bo,oh->bh", einsum("bo,oh->bh"));
  const Tensor g = p.Apply("g", "gelu", {&h}, nullptr, tp_mlp::Map(tp_mlp::GeluGrad));
  const Tensor dh = p.Apply("dh", "mul", {&da, &g}, nullptr, tp_mlp::Product);
  Tensor dw1 = p.Apply("dW1", "einsum", {&dh, &x}, "bh,bd->hd", einsum("bh,bd->hd"));
  Tensor dx = p.Apply("dx", "einsum", {&dh, &w1}, "bh,hd->bd", einsum("bh,hd->bd"));
  // Gradients in their parameters' layouts: the data-parallel all-reduce, chosen by the plan.
  std::string moves;
  dw1 = p.Move(dw1, w1.layout, &moves);
  dw2 = p.Move(dw2, w2.layout, &moves);
  dx = p.Move(dx, x.layout, &moves);
  p.Report("grads", "to param", moves, "layouts of W1, W2, x");

  const tp_mlp::Reference ref = tp_mlp::Reference::Compute(B, D, H, O, X, W1, W2);
  double worst = 0;
  worst = std::max(worst, tp_mlp::RelError(p.Gather(loss), ref.loss));
  worst = std::max(worst, tp_mlp::RelError(p.Gather(dw1), ref.dw1));
  worst = std::max(worst, tp_mlp::RelError(p.Gather(dw2), ref.dw2));
  worst = std::max(worst, tp_mlp::RelError(p.Gather(dx), ref.dx));
  const bool ok = worst < 1e-4;
  std::printf("rank %d: loss %.6f (one process: %.6f), worst relative error %.2e: %s\n", p.rank(),
              static_cast<double>(p.Gather(loss).values[0]), ref.loss.values[0], worst,
              ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main() {
  weft_context_t* ctx = nullptr;
  if (weft_context_create(nullptr, &ctx) != WEFT_OK) {
    std::fprintf(stderr, "tp_mlp: weft_context_create: %s\n", weft_last_error());
    return 1;
  }
  int rc = 1;
  try {
    rc = Main(ctx);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp_mlp: %s\n", e.what());
    weft_context_abort(ctx);
  }
  weft_context_destroy(ctx);
  return rc;
}
