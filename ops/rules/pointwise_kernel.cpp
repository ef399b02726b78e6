// The pointwise operators' reference kernels: each output element from the inputs' elements
// under numpy broadcasting (trailing dims aligned, size-1 dims repeated). Shape-generic, so a
// rank's blocks work as well as the global tensors.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ops/rules/builtin.hpp"

namespace weft::ops {
namespace {

double Gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

const std::map<std::string, std::function<double(double)>>& Unary() {
  static const std::map<std::string, std::function<double(double)>> k = {
      {"neg", [](double x) { return -x; }},
      {"relu", [](double x) { return x > 0 ? x : 0.0; }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"gelu", Gelu},
      {"abs", [](double x) { return std::abs(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"log", [](double x) { return std::log(x); }},
  };
  return k;
}

const std::map<std::string, std::function<double(double, double)>>& Binary() {
  static const std::map<std::string, std::function<double(double, double)>> k = {
      {"add", [](double a, double b) { return a + b; }},
      {"sub", [](double a, double b) { return a - b; }},
      {"mul", [](double a, double b) { return a * b; }},
      {"div", [](double a, double b) { return a / b; }},
      {"maximum", [](double a, double b) { return std::max(a, b); }},
      {"minimum", [](double a, double b) { return std::min(a, b); }},
  };
  return k;
}

// out = f(inputs) elementwise with broadcasting; the output shape from the inputs.
Status Broadcasting(std::span<const DenseTensor> in,
                    const std::function<double(const std::vector<double>&)>& f, DenseTensor* out) {
  size_t nd = 0;
  for (const DenseTensor& t : in) nd = std::max(nd, t.shape.size());
  out->shape.assign(nd, 1);
  for (const DenseTensor& t : in)
    for (size_t d = 0; d < t.shape.size(); ++d) {
      int64_t& o = out->shape[nd - t.shape.size() + d];
      if (t.shape[d] != 1) {
        if (o != 1 && o != t.shape[d]) return InvalidArgument("blocks do not broadcast");
        o = t.shape[d];
      }
    }
  int64_t n = 1;
  for (int64_t e : out->shape) n *= e;
  out->values.assign(static_cast<size_t>(n), 0);
  std::vector<int64_t> idx(nd, 0);
  std::vector<double> args(in.size());
  for (int64_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < in.size(); ++i) {
      const DenseTensor& t = in[i];
      int64_t off = 0;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        const int64_t e = t.shape[d];
        off = off * e + (e == 1 ? 0 : idx[nd - t.shape.size() + d]);
      }
      args[i] = t.values[static_cast<size_t>(off)];
    }
    out->values[static_cast<size_t>(k)] = f(args);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < out->shape[d]) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

KernelFn PointwiseKernel(const std::string& op) {
  std::function<double(const std::vector<double>&)> f;
  if (auto u = Unary().find(op); u != Unary().end()) {
    f = [g = u->second](const std::vector<double>& a) { return g(a[0]); };
  } else if (auto b = Binary().find(op); b != Binary().end()) {
    f = [g = b->second](const std::vector<double>& a) { return g(a[0], a[1]); };
  } else {
    return nullptr;
  }
  return [f](const KernelCall& call, std::vector<DenseTensor>* out) {
    out->resize(1);
    return Broadcasting(call.inputs, f, &(*out)[0]);
  };
}

}  // namespace weft::ops
