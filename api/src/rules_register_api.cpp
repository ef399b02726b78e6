// extern "C" layer for adding operators to a rule registry (weft/rules.h): einsum operators,
// rules files, rule plugins, and the agreement across ranks (weft_rules_attach).
#include <algorithm>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/rules_object.hpp"
#include "ops/declarative/einsum.hpp"
#include "ops/declarative/rules_file.hpp"
#include "ops/plugin/rules_plugin.hpp"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;

namespace {

constexpr size_t kEinsumOptionsFirstSize =
    offsetof(weft_einsum_options_t, unshardable) + sizeof(const char*);

// Runs `add` on the registry under the exclusive lock, unless the registry is attached.
template <typename Add>
Status Register(weft::api::RulesObject& r, Add&& add) {
  std::unique_lock lock(r.mu);
  if (r.attached)
    return weft::InvalidUsage(
        "the registry is attached to a context (weft_rules_attach): every rank agreed on its "
        "operators, so it takes no more; register everything before attaching");
  return add(r.registry);
}

Status EinsumOp(const char* name, const char* equation, const weft_einsum_options_t* options,
                weft::ops::OpDef* out) {
  WEFT_REQUIRE(name);
  WEFT_REQUIRE(equation);
  if (options != nullptr && options->struct_size < kEinsumOptionsFirstSize)
    return InvalidArgument("options->struct_size is " + std::to_string(options->struct_size) +
                           " but must be at least " + std::to_string(kEinsumOptionsFirstSize));
  WEFT_ASSIGN_OR_RETURN(weft::ops::EinsumSpec spec, weft::ops::ParseEinsum(equation));
  if (options != nullptr) {
    const size_t n = spec.inputs.size();
    if (n < 64 && (options->nonlinear_inputs >> n) != 0)
      return InvalidArgument("options->nonlinear_inputs sets a bit past the equation's " +
                             std::to_string(n) + " inputs");
    for (size_t i = 0; i < n && i < 64; ++i)
      spec.linear[i] = ((options->nonlinear_inputs >> i) & 1) == 0;
    if (options->unshardable != nullptr) spec.unshardable = options->unshardable;
  }
  *out = weft::ops::MakeEinsumOp(name, std::move(spec), "weft_rules_register_einsum");
  return Status::Ok();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first difference between rank 0's digest and another's, the same text on every rank
// (every rank holds every digest); empty when all agree.
std::string FirstDifference(const std::vector<std::string>& digests) {
  const std::vector<std::string> ref = Lines(digests[0]);
  for (size_t r = 1; r < digests.size(); ++r) {
    if (digests[r] == digests[0]) continue;
    const std::vector<std::string> mine = Lines(digests[r]);
    const auto at = std::mismatch(ref.begin(), ref.end(), mine.begin(), mine.end());
    const std::string theirs = at.second == mine.end() ? "nothing more" : "'" + *at.second + "'";
    const std::string zero = at.first == ref.end() ? "nothing more" : "'" + *at.first + "'";
    return "rank " + std::to_string(r) + " has " + theirs + " where rank 0 has " + zero;
  }
  return {};
}

}  // namespace

extern "C" {

weft_status_t weft_rules_register_einsum(weft_rules_t* rules, const char* name,
                                         const char* equation,
                                         const weft_einsum_options_t* options) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    weft::ops::OpDef op;
    WEFT_RETURN_IF_ERROR(EinsumOp(name, equation, options, &op));
    return Register(*r, [&](weft::ops::Registry& reg) { return reg.Add(std::move(op)); });
  });
}

weft_status_t weft_rules_load_file(weft_rules_t* rules, const char* path) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    WEFT_REQUIRE(path);
    return Register(*r,
                    [&](weft::ops::Registry& reg) { return weft::ops::LoadRulesFile(reg, path); });
  });
}

weft_status_t weft_rules_load_string(weft_rules_t* rules, const char* text, const char* origin) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    WEFT_REQUIRE(text);
    WEFT_ASSIGN_OR_RETURN(weft::ops::RegistryBatch batch,
                          weft::ops::ParseRules(text, origin ? origin : "<string>"));
    return Register(*r, [&](weft::ops::Registry& reg) { return reg.AddBatch(std::move(batch)); });
  });
}

weft_status_t weft_rules_load_plugin(weft_rules_t* rules, const char* name_or_path) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    WEFT_REQUIRE(name_or_path);
    return Register(*r, [&](weft::ops::Registry& reg) {
      return weft::ops::LoadRulesPlugin(reg, name_or_path);
    });
  });
}

weft_status_t weft_rules_attach(weft_rules_t* rules, weft_context_t* ctx) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    WEFT_USE(c, ctx);
    // Held through the exchange: a registration meanwhile would make this rank's answer stale.
    std::shared_lock lock(r->mu);
    WEFT_ASSIGN_OR_RETURN(std::vector<std::string> all,
                          c->ShareThroughStore("rules", r->registry.Digest()));
    const std::string diff = FirstDifference(all);
    if (!diff.empty())
      return weft::InvalidUsage("the ranks' rule registries differ: " + diff +
                                " (every rank must register the same operators, so that all "
                                "pick the same strategies)");
    r->attached.store(true);
    return Status::Ok();
  });
}

}  // extern "C"
