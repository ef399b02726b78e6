// extern "C" layer for op-sharding rules (weft/rules.h): attribute conversion, argument
// checks, and handles over ops::Engine's strategies.
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "api/src/rules_object.hpp"
#include "ops/engine/engine.hpp"
#include "ops/rules/builtin.hpp"
#include "weft/rules.h"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// The first weft_attr_t: what every caller's struct has.
constexpr size_t kAttrFirstSize = offsetof(weft_attr_t, reserved2) + sizeof(int32_t);

Status ToAttributes(const weft_attr_t* attrs, int32_t n, weft::ops::Attributes* out) {
  if (n < 0) return InvalidArgument("n_attrs is " + Str(n) + " but must be >= 0");
  if (n > 0) WEFT_REQUIRE(attrs);
  const size_t stride = n > 0 ? attrs->struct_size : 0;
  if (n > 0 && stride < kAttrFirstSize)
    return InvalidArgument("attrs[0].struct_size is " + Str(int64_t(stride)) +
                           " but must be at least " + Str(int64_t(kAttrFirstSize)));
  for (int32_t k = 0; k < n; ++k) {
    const auto* a = reinterpret_cast<const weft_attr_t*>(reinterpret_cast<const char*>(attrs) +
                                                         static_cast<size_t>(k) * stride);
    const std::string at = "attrs[" + Str(k) + "]";
    if (a->struct_size != stride)
      return InvalidArgument(at + ".struct_size differs from attrs[0].struct_size");
    if (a->name == nullptr) return InvalidArgument(at + ".name is NULL");
    if (a->reserved != 0 || a->reserved2 != 0)
      return InvalidArgument(at + ": the reserved fields must be 0");
    weft::ops::AttrValue v;
    switch (a->kind) {
      case WEFT_ATTR_INT:
        v = a->i;
        break;
      case WEFT_ATTR_INTS:
        if (a->n_ints < 0 || a->n_ints > WEFT_MAX_TENSOR_NDIM * 64)
          return InvalidArgument(at + ".n_ints is " + Str(a->n_ints) + " but must be 0.." +
                                 Str(WEFT_MAX_TENSOR_NDIM * 64));
        if (a->n_ints > 0 && a->ints == nullptr) return InvalidArgument(at + ".ints is NULL");
        v = std::vector<int64_t>(a->ints, a->ints + a->n_ints);
        break;
      case WEFT_ATTR_FLOAT:
        v = a->f;
        break;
      case WEFT_ATTR_BOOL:
        if (a->i != 0 && a->i != 1) return InvalidArgument(at + ".i must be 0 or 1 for a bool");
        v = a->i != 0;
        break;
      case WEFT_ATTR_STRING:
        if (a->s == nullptr) return InvalidArgument(at + ".s is NULL");
        v = std::string(a->s);
        break;
      case WEFT_ATTR_DTYPE:
        v = weft::DType{a->dtype.code, a->dtype.bits, a->dtype.lanes};
        break;
      default:
        return InvalidArgument(at + ".kind is " + Str(a->kind) +
                               " but must be WEFT_ATTR_INT (0) .. WEFT_ATTR_DTYPE (5)");
    }
    WEFT_RETURN_IF_ERROR(out->Set(a->name, std::move(v)));
  }
  return Status::Ok();
}

// The layouts behind the input handles, and the attributes.
Status Arguments(const char* op, int32_t n, const weft_layout_t* const* inputs,
                 const weft_attr_t* attrs, int32_t n_attrs,
                 std::vector<weft::placement::LayoutPtr>* layouts, weft::ops::Attributes* a) {
  WEFT_REQUIRE(op);
  if (n < 0 || n > 64) return InvalidArgument("n_inputs is " + Str(n) + " but must be 0..64");
  if (n > 0) WEFT_REQUIRE(inputs);
  for (int32_t i = 0; i < n; ++i) {
    weft::api::Ref<weft::api::LayoutObject> l;
    const std::string name = "inputs[" + Str(i) + "]";
    WEFT_RETURN_IF_ERROR(weft::api::Use(inputs[i], name.c_str(), &l));
    layouts->push_back(l->layout);
  }
  return ToAttributes(attrs, n_attrs, a);
}

Status NewStrategy(weft::ops::StrategyPtr s, weft_strategy_t** out) {
  return weft::api::PublishTo(weft::api::MakeStrategyObject(std::move(s)), out);
}

// A new handle for layout i of `list` (inputs or outputs of a strategy).
Status LayoutAt(const std::vector<weft::placement::LayoutPtr>& list, int32_t i, const char* what,
                weft_layout_t** out) {
  WEFT_REQUIRE(out);
  if (i < 0 || i >= static_cast<int32_t>(list.size()))
    return InvalidArgument("i is " + Str(i) + " but the strategy has " + Str(int64_t(list.size())) +
                           " " + what);
  return weft::api::PublishTo(
      std::make_unique<weft::api::LayoutObject>(weft::api::LayoutObject{list[size_t(i)]}), out);
}

}  // namespace

extern "C" {

weft_status_t weft_rules_create(weft_rules_t** rules) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(rules);
    auto obj = std::make_unique<weft::api::RulesObject>();
    WEFT_RETURN_IF_ERROR(weft::ops::RegisterBuiltins(obj->registry));
    return weft::api::PublishTo(std::move(obj), rules);
  });
}

weft_status_t weft_rules_destroy(weft_rules_t* rules) {
  return Guard(__func__, [&] { return weft::api::Destroy(rules, "rules"); });
}

weft_status_t weft_rules_list_ops(const weft_rules_t* rules, char* buf, size_t len,
                                  size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    std::shared_lock lock(r->mu);
    std::string text;
    for (const std::string& name : r->registry.Names()) text += name + "\n";
    return weft::api::WriteText(text, buf, len, needed);
  });
}

weft_status_t weft_rules_propagate(weft_rules_t* rules, const char* op, int32_t n_inputs,
                                   const weft_layout_t* const* inputs, const weft_attr_t* attrs,
                                   int32_t n_attrs, weft_strategy_t** strategy) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    WEFT_REQUIRE(strategy);
    std::vector<weft::placement::LayoutPtr> layouts;
    weft::ops::Attributes a;
    WEFT_RETURN_IF_ERROR(Arguments(op, n_inputs, inputs, attrs, n_attrs, &layouts, &a));
    std::shared_lock lock(r->mu);
    WEFT_ASSIGN_OR_RETURN(weft::ops::StrategyPtr s, r->engine.Propagate(op, layouts, a));
    return NewStrategy(std::move(s), strategy);
  });
}

weft_status_t weft_rules_enumerate(weft_rules_t* rules, const char* op, int32_t n_inputs,
                                   const weft_layout_t* const* inputs, const weft_attr_t* attrs,
                                   int32_t n_attrs, weft_strategy_t** out, int32_t max,
                                   int32_t* count) {
  return Guard(__func__, [&] {
    WEFT_USE(r, rules);
    WEFT_REQUIRE(count);
    if (max < 0) return InvalidArgument("max is " + Str(max) + " but must be >= 0");
    if (max > 0) WEFT_REQUIRE(out);
    std::vector<weft::placement::LayoutPtr> layouts;
    weft::ops::Attributes a;
    WEFT_RETURN_IF_ERROR(Arguments(op, n_inputs, inputs, attrs, n_attrs, &layouts, &a));
    std::shared_lock lock(r->mu);
    WEFT_ASSIGN_OR_RETURN(auto all, r->engine.Enumerate(op, layouts, a));
    const auto n = static_cast<int32_t>(std::min<size_t>(all.size(), size_t(max)));
    for (int32_t k = 0; k < n; ++k) {
      Status s = NewStrategy(all[size_t(k)], &out[k]);
      if (!s.ok()) {  // hand back nothing rather than some
        for (int32_t j = 0; j < k; ++j) (void)weft::api::Destroy(out[j], "out");
        return s;
      }
    }
    *count = static_cast<int32_t>(all.size());
    return Status::Ok();
  });
}

weft_status_t weft_strategy_num_inputs(const weft_strategy_t* s, int32_t* n) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, s);
    WEFT_REQUIRE(n);
    *n = static_cast<int32_t>(obj->strategy->inputs.size());
    return Status::Ok();
  });
}

weft_status_t weft_strategy_num_outputs(const weft_strategy_t* s, int32_t* n) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, s);
    WEFT_REQUIRE(n);
    *n = static_cast<int32_t>(obj->strategy->outputs.size());
    return Status::Ok();
  });
}

weft_status_t weft_strategy_input_layout(const weft_strategy_t* s, int32_t i,
                                         weft_layout_t** layout) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, s);
    return LayoutAt(obj->strategy->inputs, i, "inputs", layout);
  });
}

weft_status_t weft_strategy_output_layout(const weft_strategy_t* s, int32_t i,
                                          weft_layout_t** layout) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, s);
    return LayoutAt(obj->strategy->outputs, i, "outputs", layout);
  });
}

weft_status_t weft_strategy_cost(const weft_strategy_t* s, double* seconds) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, s);
    WEFT_REQUIRE(seconds);
    *seconds = obj->strategy->cost;
    return Status::Ok();
  });
}

weft_status_t weft_strategy_describe(const weft_strategy_t* s, char* buf, size_t len,
                                     size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(obj, s);
    return weft::api::WriteText(obj->strategy->Describe(), buf, len, needed);
  });
}

weft_status_t weft_strategy_destroy(weft_strategy_t* s) {
  return Guard(__func__, [&] { return weft::api::Destroy(s, "strategy"); });
}

}  // extern "C"
