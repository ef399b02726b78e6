// The operators a rule registry knows (SPEC §5): canonical names, their rules and aliases.
// Registration bumps the generation, which is part of every cache key.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "ops/engine/kernel.hpp"
#include "ops/engine/rule.hpp"

namespace weft::ops {

struct OpDef {
  std::string name;
  int32_t min_inputs = 1, max_inputs = 1;
  RuleFn rule;
  std::vector<std::string> key_attrs;  // the attributes the rule reads: they key the cache
  std::string source = "built-in";     // where it was registered (messages)
  KernelFn kernel;                     // optional: the validation harness checks ops with one
  // What the rule is, for comparing registries across ranks (where paths may differ): the
  // einsum and its flags, the plugin's name, "built-in".
  std::string signature = "built-in";
};

struct AliasDef {
  std::string alias, target, source;
};

// Several registrations that land together or not at all (a rules file, a plugin): the
// registry is unchanged when any of them fails.
struct RegistryBatch {
  std::vector<OpDef> ops;
  std::vector<AliasDef> aliases;  // may name the batch's own operators
};

class Registry {
 public:
  // Errors: an empty name, no rule, a bad input range, or a name (or alias) already taken
  // (the message names both sources).
  Status Add(OpDef op);
  Status AddAlias(std::string alias, std::string target, std::string source);
  // Everything in `batch`, checked first (each op as Add checks it, names unique within the
  // batch too, alias targets registered or in the batch), then added; one error otherwise.
  Status AddBatch(RegistryBatch batch);
  // The operator `name` names, directly or through an alias; nullptr if none.
  const OpDef* Find(std::string_view name) const;
  std::vector<std::string> Names() const;  // canonical names, sorted
  // Every operator (name, inputs, key attributes, signature) and alias, one sorted line each:
  // equal on two ranks exactly when they registered the same operators.
  std::string Digest() const;
  uint64_t generation() const { return generation_; }

 private:
  Status Taken(const std::string& name, const std::string& source) const;
  static Status CheckOp(const OpDef& op);

  std::map<std::string, std::shared_ptr<const OpDef>, std::less<>> ops_;
  std::map<std::string, std::pair<std::string, std::string>, std::less<>>
      aliases_;  // target, source
  uint64_t generation_ = 0;
};

}  // namespace weft::ops
