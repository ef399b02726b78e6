#include "ops/engine/attributes.hpp"

#include <algorithm>
#include <type_traits>

#include "common/fnv1a.hpp"

namespace weft::ops {

const char* AttrKindName(const AttrValue& v) {
  static constexpr const char* kNames[] = {"int", "int list", "float", "bool", "string", "dtype"};
  return kNames[v.index()];
}

Status Attributes::Set(std::string name, AttrValue value) {
  if (name.empty()) return InvalidArgument("an attribute has an empty name");
  auto at = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, const std::string& n) { return item.first < n; });
  if (at != items_.end() && at->first == name)
    return InvalidArgument("attribute '" + name + "' is given twice");
  items_.emplace(at, std::move(name), std::move(value));
  return Status::Ok();
}

const AttrValue* Attributes::Find(std::string_view name) const {
  auto at = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  return at != items_.end() && at->first == name ? &at->second : nullptr;
}

template <class T>
Result<T> Attributes::Get(std::string_view name, std::optional<T> fallback,
                          const char* kind) const {
  const AttrValue* v = Find(name);
  if (!v) {
    if (fallback) return std::move(*fallback);
    return InvalidArgument("attribute '" + std::string(name) + "' is missing (" + kind + ")");
  }
  if (const T* t = std::get_if<T>(v)) return *t;
  return InvalidArgument("attribute '" + std::string(name) + "': expected " + kind + ", got " +
                         AttrKindName(*v));
}

Result<int64_t> Attributes::Int(std::string_view name, std::optional<int64_t> fallback) const {
  return Get<int64_t>(name, fallback, "int");
}
Result<std::vector<int64_t>> Attributes::Ints(std::string_view name,
                                              std::optional<std::vector<int64_t>> fallback) const {
  // One int where a list is expected is the list of it (dim=1 for dims=[1]).
  if (const AttrValue* v = Find(name); v && std::holds_alternative<int64_t>(*v))
    return std::vector<int64_t>{std::get<int64_t>(*v)};
  return Get<std::vector<int64_t>>(name, std::move(fallback), "int list");
}
Result<double> Attributes::Float(std::string_view name, std::optional<double> fallback) const {
  if (const AttrValue* v = Find(name); v && std::holds_alternative<int64_t>(*v))
    return static_cast<double>(std::get<int64_t>(*v));
  return Get<double>(name, fallback, "float");
}
Result<bool> Attributes::Bool(std::string_view name, std::optional<bool> fallback) const {
  return Get<bool>(name, fallback, "bool");
}
Result<std::string> Attributes::Text(std::string_view name,
                                     std::optional<std::string> fallback) const {
  return Get<std::string>(name, std::move(fallback), "string");
}

uint64_t Attributes::Key(std::span<const std::string> names) const {
  Fnv1a h;
  for (const std::string& n : names) {
    h.Int(static_cast<int64_t>(n.size())).Text(n);
    const AttrValue* v = Find(n);
    h.Int(v ? static_cast<int64_t>(v->index()) : -1);
    if (!v) continue;
    std::visit(
        [&h](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            h.Ints(x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            h.Int(static_cast<int64_t>(x.size())).Text(x);
          } else if constexpr (std::is_same_v<T, DType>) {
            h.Int(x.code).Int(x.bits).Int(x.lanes);
          } else {
            h.Bytes(&x, sizeof(x));
          }
        },
        *v);
  }
  return h.value();
}

std::string Attributes::Describe() const {
  std::string out;
  for (const auto& [name, v] : items_) {
    if (!out.empty()) out += ", ";
    out += name + "=";
    std::visit(
        [&out](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            out += "[";
            for (size_t i = 0; i < x.size(); ++i) out += (i ? "," : "") + std::to_string(x[i]);
            out += "]";
          } else if constexpr (std::is_same_v<T, std::string>) {
            out += "'" + x + "'";
          } else if constexpr (std::is_same_v<T, bool>) {
            out += x ? "true" : "false";
          } else if constexpr (std::is_same_v<T, DType>) {
            out += DTypeName(x);
          } else {
            out += std::to_string(x);
          }
        },
        v);
  }
  return out;
}

}  // namespace weft::ops
