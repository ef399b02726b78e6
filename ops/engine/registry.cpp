#include "ops/engine/registry.hpp"

#include <algorithm>
#include <utility>

namespace weft::ops {

Status Registry::Taken(const std::string& name, const std::string& source) const {
  if (auto it = ops_.find(name); it != ops_.end())
    return InvalidArgument("operator '" + name + "' from " + source + " is already registered by " +
                           it->second->source);
  if (auto it = aliases_.find(name); it != aliases_.end())
    return InvalidArgument("operator '" + name + "' from " + source + " is already an alias of '" +
                           it->second.first + "' from " + it->second.second);
  return Status::Ok();
}

Status Registry::CheckOp(const OpDef& op) {
  if (op.name.empty()) return InvalidArgument("an operator from " + op.source + " has no name");
  if (!op.rule) return InvalidArgument("operator '" + op.name + "' has no rule");
  if (op.min_inputs < 0 || op.max_inputs < op.min_inputs)
    return InvalidArgument("operator '" + op.name + "': bad input count range [" +
                           std::to_string(op.min_inputs) + ", " + std::to_string(op.max_inputs) +
                           "]");
  return Status::Ok();
}

Status Registry::Add(OpDef op) {
  WEFT_RETURN_IF_ERROR(CheckOp(op));
  WEFT_RETURN_IF_ERROR(Taken(op.name, op.source));
  std::string name = op.name;
  ops_.emplace(std::move(name), std::make_shared<const OpDef>(std::move(op)));
  ++generation_;
  return Status::Ok();
}

Status Registry::AddAlias(std::string alias, std::string target, std::string source) {
  if (alias.empty()) return InvalidArgument("an alias from " + source + " has no name");
  if (ops_.find(target) == ops_.end())
    return InvalidArgument("alias '" + alias + "' from " + source + " names '" + target +
                           "', which is not a registered operator");
  WEFT_RETURN_IF_ERROR(Taken(alias, source));
  aliases_.emplace(std::move(alias), std::make_pair(std::move(target), std::move(source)));
  ++generation_;
  return Status::Ok();
}

Status Registry::AddBatch(RegistryBatch batch) {
  std::map<std::string, std::string, std::less<>> fresh;  // name -> source, within the batch
  auto claim = [&](const std::string& name, const std::string& source) -> Status {
    if (name.empty()) return InvalidArgument("a name from " + source + " is empty");
    WEFT_RETURN_IF_ERROR(Taken(name, source));
    if (auto it = fresh.find(name); it != fresh.end())
      return InvalidArgument("operator '" + name + "' from " + source +
                             " is already registered by " + it->second);
    fresh.emplace(name, source);
    return Status::Ok();
  };
  for (const OpDef& op : batch.ops) {
    WEFT_RETURN_IF_ERROR(CheckOp(op));
    WEFT_RETURN_IF_ERROR(claim(op.name, op.source));
  }
  for (const AliasDef& a : batch.aliases) {
    WEFT_RETURN_IF_ERROR(claim(a.alias, a.source));
    const bool in_batch = std::any_of(batch.ops.begin(), batch.ops.end(),
                                      [&](const OpDef& op) { return op.name == a.target; });
    if (!in_batch && ops_.find(a.target) == ops_.end())
      return InvalidArgument("alias '" + a.alias + "' from " + a.source + " names '" + a.target +
                             "', which is not a registered operator");
  }
  for (OpDef& op : batch.ops) {
    std::string name = op.name;
    ops_.emplace(std::move(name), std::make_shared<const OpDef>(std::move(op)));
  }
  for (AliasDef& a : batch.aliases)
    aliases_.emplace(std::move(a.alias), std::make_pair(std::move(a.target), std::move(a.source)));
  ++generation_;
  return Status::Ok();
}

const OpDef* Registry::Find(std::string_view name) const {
  if (auto it = ops_.find(name); it != ops_.end()) return it->second.get();
  if (auto it = aliases_.find(name); it != aliases_.end()) return Find(it->second.first);
  return nullptr;
}

std::string Registry::Digest() const {
  std::string out;
  for (const auto& [name, op] : ops_) {
    out += "op " + name + " inputs " + std::to_string(op->min_inputs) + ".." +
           std::to_string(op->max_inputs) + " keys";
    for (const std::string& k : op->key_attrs) out += " " + k;
    out += " rule " + op->signature + "\n";
  }
  for (const auto& [alias, target] : aliases_) out += "alias " + alias + " " + target.first + "\n";
  return out;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, op] : ops_) out.push_back(name);
  return out;
}

}  // namespace weft::ops
