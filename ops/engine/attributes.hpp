// Operator attributes (SPEC §5): typed name/value pairs a framework passes with an operator
// (`dim`, `keepdim`, `equation`, ...). A rule reads them through accessors whose errors name
// the attribute, and declares which of them key the propagate cache.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/dtype.hpp"
#include "common/result.hpp"

namespace weft::ops {

using AttrValue = std::variant<int64_t, std::vector<int64_t>, double, bool, std::string, DType>;

// "int", "int list", "float", "bool", "string", "dtype".
const char* AttrKindName(const AttrValue& v);

class Attributes {
 public:
  // Adds `name`; a second value for one name is an error naming it.
  Status Set(std::string name, AttrValue value);
  const AttrValue* Find(std::string_view name) const;
  bool empty() const { return items_.empty(); }

  // The value of `name`, or `fallback` when absent (an error when absent without one); a value
  // of another kind is an error naming the attribute and both kinds.
  Result<int64_t> Int(std::string_view name, std::optional<int64_t> fallback = {}) const;
  Result<std::vector<int64_t>> Ints(std::string_view name,
                                    std::optional<std::vector<int64_t>> fallback = {}) const;
  Result<double> Float(std::string_view name, std::optional<double> fallback = {}) const;
  Result<bool> Bool(std::string_view name, std::optional<bool> fallback = {}) const;
  Result<std::string> Text(std::string_view name, std::optional<std::string> fallback = {}) const;

  // FNV-1a of the named attributes' kinds and values (absent ones included as absent): the
  // part of the cache key an operator's attributes contribute. Attributes a rule does not
  // name cannot split its cache.
  uint64_t Key(std::span<const std::string> names) const;

  // "dim=1, keepdim=true": for messages and strategy descriptions.
  std::string Describe() const;

 private:
  template <class T>
  Result<T> Get(std::string_view name, std::optional<T> fallback, const char* kind) const;

  std::vector<std::pair<std::string, AttrValue>> items_;  // sorted by name
};

}  // namespace weft::ops
