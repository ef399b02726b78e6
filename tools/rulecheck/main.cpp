// rulecheck: the validation harness's command (ops/check/harness.hpp). For every operator of
// the chosen families, random cases; for each, random input layouts on abstract meshes and
// every candidate strategy run rank by rank against the one-process result. Prints a line per
// family and, on a failure, the seed, the case and the strategy; exits 1.
//
//   rulecheck [--family NAME[,NAME...]] [--op NAME] [--cases N] [--layouts N] [--seed S]
//             [--plugin NAME_OR_PATH]...
//
// --cases: per family (default 200), spread over its operators in turn; --layouts: random
// input layouts per case (default 2). Plugins add their operators and families (scientific,
// aten) when loaded.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ops/check/cases.hpp"
#include "ops/engine/engine.hpp"
#include "ops/plugin/rules_plugin.hpp"
#include "ops/rules/builtin.hpp"

namespace {

using namespace weft::ops;         // NOLINT(google-build-using-namespace)
using namespace weft::ops::check;  // NOLINT(google-build-using-namespace)

struct Options {
  std::vector<std::string> families, plugins;
  std::string op;
  int64_t cases = 200, layouts = 2;
  uint64_t seed = 1;
};

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  for (size_t at = 0, end = 0; end != std::string::npos; at = end + 1) {
    end = s.find(',', at);
    out.push_back(s.substr(at, end == std::string::npos ? end : end - at));
  }
  return out;
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    if (a == "--family") {
      o->families = Split(v);
    } else if (a == "--op") {
      o->op = v;
    } else if (a == "--cases") {
      o->cases = std::atoll(v.c_str());
    } else if (a == "--layouts") {
      o->layouts = std::atoll(v.c_str());
    } else if (a == "--seed") {
      o->seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--plugin") {
      o->plugins.push_back(v);
    } else {
      return false;
    }
  }
  return o->cases > 0 && o->layouts > 0;
}

// Runs `cases` cases over `ops` in turn; false on the first failure.
bool RunFamily(const Registry& reg, Engine& engine, const std::string& name,
               const std::vector<std::string>& ops, const Options& o) {
  Rng rng(o.seed);
  int64_t layouts = 0, candidates = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t k = 0; k < o.cases; ++k) {
    const std::string& op = ops[static_cast<size_t>(k) % ops.size()];
    const OpDef* def = reg.Find(op);
    if (def == nullptr || !def->kernel) {
      std::printf("FAIL %s: operator '%s' is %s\n", name.c_str(), op.c_str(),
                  def ? "without a reference kernel" : "not registered");
      return false;
    }
    auto c = MakeCase(op, rng);
    if (!c.ok()) {
      std::printf("FAIL %s: %s\n", name.c_str(), c.status().message().c_str());
      return false;
    }
    const CaseResult r = CheckCase(engine, *def, *c, o.layouts, rng);
    layouts += r.layouts;
    candidates += r.candidates;
    if (!r.failure.empty()) {
      std::printf("FAIL %s, case %lld (seed %llu): %s\n", name.c_str(), static_cast<long long>(k),
                  static_cast<unsigned long long>(o.seed), r.failure.c_str());
      return false;
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("ok   %-12s %3zu ops, %4lld cases, %5lld layouts, %7lld candidates, %.1f s\n",
              name.c_str(), ops.size(), static_cast<long long>(o.cases),
              static_cast<long long>(layouts), static_cast<long long>(candidates), s);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: rulecheck [--family NAME,...] [--op NAME] [--cases N] [--layouts N] "
                 "[--seed S] [--plugin NAME_OR_PATH]...\n");
    return 2;
  }
  Registry reg;
  if (weft::Status s = RegisterBuiltins(reg); !s.ok()) {
    std::fprintf(stderr, "rulecheck: %s\n", s.message().c_str());
    return 1;
  }
  for (const std::string& p : o.plugins)
    if (weft::Status s = LoadRulesPlugin(reg, p); !s.ok()) {
      std::fprintf(stderr, "rulecheck: %s\n", s.message().c_str());
      return 1;
    }
  Engine engine(reg);
  std::printf("rulecheck: seed %llu, %lld cases per family, %lld layouts per case\n",
              static_cast<unsigned long long>(o.seed), static_cast<long long>(o.cases),
              static_cast<long long>(o.layouts));
  bool ok = true;
  if (!o.op.empty()) return RunFamily(reg, engine, o.op, {o.op}, o) ? 0 : 1;
  for (const Family& f : Families()) {
    const bool chosen = o.families.empty() ||
                        std::find(o.families.begin(), o.families.end(), f.name) != o.families.end();
    if (chosen && (f.plugin.empty() || reg.Find(f.ops[0]) != nullptr))
      ok = RunFamily(reg, engine, f.name, f.ops, o) && ok;
  }
  return ok ? 0 : 1;
}
