// The function table a rule plugin gets (weft_rules_host_t): registration, the rule builder
// and attribute accessors. Every entry checks its arguments — a plugin's bug becomes a status
// and a message, never a crash in libweft — and records the failure on the call, so that a
// plugin ignoring an error still fails the call.
#include "ops/plugin/host_table.hpp"

#include <string>
#include <utility>

#include "ops/declarative/einsum.hpp"

namespace weft::ops {
namespace {

weft_status_t Fail(weft_rule_ctx* ctx, const std::string& why) {
  if (ctx == nullptr) return WEFT_ERR_INVALID_ARGUMENT;
  ctx->error = why;
  ctx->failed = true;
  return WEFT_ERR_INVALID_ARGUMENT;
}

weft_status_t Fail(weft_rules_registrar* r, const std::string& why) {
  if (r == nullptr) return WEFT_ERR_INVALID_ARGUMENT;
  r->error = why;
  r->failed = true;
  return WEFT_ERR_INVALID_ARGUMENT;
}

weft_status_t CheckRegistrar(weft_rules_registrar* r, const char* what) {
  if (r == nullptr) return WEFT_ERR_INVALID_ARGUMENT;
  if (!r->open) return Fail(r, std::string(what) + " after register_ops returned");
  return WEFT_OK;
}

weft_status_t AddOp(weft_rules_registrar* r, const weft_rule_op_t* op) {
  if (weft_status_t s = CheckRegistrar(r, "add_op"); s != WEFT_OK) return s;
  if (op == nullptr) return Fail(r, "add_op: op is NULL");
  if (op->struct_size < sizeof(weft_rule_op_t))
    return Fail(r, "add_op: struct_size " + std::to_string(op->struct_size) +
                       " is below ABI 1.0's " + std::to_string(sizeof(weft_rule_op_t)));
  if (op->name == nullptr || op->rule == nullptr)
    return Fail(r, "add_op: the name and the rule may not be NULL");
  if (op->n_key_attrs < 0 || (op->n_key_attrs > 0 && op->key_attrs == nullptr))
    return Fail(r, std::string("add_op '") + op->name + "': bad key_attrs");
  for (int32_t k = 0; k < op->n_key_attrs; ++k)
    if (op->key_attrs[k] == nullptr)
      return Fail(r, std::string("add_op '") + op->name + "': key_attrs[" + std::to_string(k) +
                         "] is NULL");
  r->batch.ops.push_back(PluginOpDef(*op, *r));
  return WEFT_OK;
}

weft_status_t AddEinsum(weft_rules_registrar* r, const char* name, const char* equation,
                        uint64_t nonlinear, const char* unshardable) {
  if (weft_status_t s = CheckRegistrar(r, "add_einsum"); s != WEFT_OK) return s;
  if (name == nullptr || equation == nullptr)
    return Fail(r, "add_einsum: name and equation may not be NULL");
  auto spec = ParseEinsum(equation);
  if (!spec.ok())
    return Fail(r, "add_einsum '" + std::string(name) + "': " + spec.status().message());
  const size_t n = spec->inputs.size();
  if (n < 64 && (nonlinear >> n) != 0)
    return Fail(r, "add_einsum '" + std::string(name) + "': nonlinear_inputs names an input " +
                       "the equation does not have");
  for (size_t i = 0; i < n && i < 64; ++i) spec->linear[i] = ((nonlinear >> i) & 1) == 0;
  if (unshardable != nullptr) spec->unshardable = unshardable;
  r->batch.ops.push_back(MakeEinsumOp(name, std::move(*spec), r->source));
  return WEFT_OK;
}

weft_status_t AddAlias(weft_rules_registrar* r, const char* alias, const char* target) {
  if (weft_status_t s = CheckRegistrar(r, "add_alias"); s != WEFT_OK) return s;
  if (alias == nullptr || target == nullptr) return Fail(r, "add_alias: NULL name");
  r->batch.aliases.push_back({alias, target, r->source});
  return WEFT_OK;
}

void RegisterError(weft_rules_registrar* r, const char* message) {
  if (r != nullptr) r->error = message ? message : "(no message)";
}

weft_status_t AddOutput(weft_rule_ctx* ctx, int32_t ndim, const int64_t* shape, DLDataType dt) {
  if (ctx == nullptr || ctx->result == nullptr) return Fail(ctx, "add_output outside a rule");
  if (ndim < 0 || ndim > 64 || (ndim > 0 && shape == nullptr))
    return Fail(ctx, "add_output: ndim " + std::to_string(ndim) + " with shape " +
                         (shape ? "set" : "NULL"));
  TensorInfo t{std::vector<int64_t>(shape, shape + ndim), FromDL(dt)};
  for (int64_t e : t.shape)
    if (e < 0) return Fail(ctx, "add_output: a negative extent " + ShapeText(t.shape));
  ctx->result->outputs.push_back(std::move(t));
  return WEFT_OK;
}

weft_status_t AddStrategy(weft_rule_ctx* ctx, const weft_rule_code_t* codes, int32_t n) {
  if (ctx == nullptr || ctx->result == nullptr) return Fail(ctx, "add_strategy outside a rule");
  if (n < 0 || n > 4096 || (n > 0 && codes == nullptr))
    return Fail(ctx, "add_strategy: " + std::to_string(n) + " codes");
  DimStrategy s;
  for (int32_t k = 0; k < n; ++k) {
    const weft_rule_code_t& c = codes[k];
    if (c.kind == WEFT_CODE_R) {
      s.codes.push_back(PlacementCode::R());
    } else if (c.kind == WEFT_CODE_S) {
      s.codes.push_back(PlacementCode::S(c.dim));
    } else if (c.kind == WEFT_CODE_P && c.op >= 0 && c.op < kNumReduceOps) {
      s.codes.push_back(PlacementCode::P(static_cast<ReduceOp>(c.op)));
    } else {
      return Fail(ctx, "add_strategy: code " + std::to_string(k) + " has kind " +
                           std::to_string(c.kind) + ", op " + std::to_string(c.op));
    }
  }
  ctx->result->strategies.push_back(std::move(s));
  return WEFT_OK;
}

weft_status_t AddAligned(weft_rule_ctx* ctx, const int32_t* tensors, const int32_t* dims,
                         int32_t n) {
  if (ctx == nullptr || ctx->result == nullptr) return Fail(ctx, "add_aligned outside a rule");
  if (n < 0 || n > 4096 || (n > 0 && (tensors == nullptr || dims == nullptr)))
    return Fail(ctx, "add_aligned: " + std::to_string(n) + " dims");
  std::vector<DimRef> group;
  for (int32_t k = 0; k < n; ++k) group.push_back({tensors[k], dims[k]});
  ctx->result->aligned.push_back(std::move(group));
  return WEFT_OK;
}

// The attribute accessors: Attributes' own errors (naming the attribute) become the call's.
template <typename T>
weft_status_t Attr(weft_rule_ctx* ctx, Result<T> v, T* out) {
  if (!v.ok()) return Fail(ctx, v.status().message());
  *out = std::move(*v);
  return WEFT_OK;
}

#define WEFT_ATTR_ARGS_OK(ctx, name, out)                                                   \
  if ((ctx) == nullptr || (ctx)->attrs == nullptr || (name) == nullptr || (out) == nullptr) \
  return Fail(ctx, "an attribute accessor got NULL")

weft_status_t AttrInt(weft_rule_ctx* ctx, const char* name, const int64_t* fb, int64_t* out) {
  WEFT_ATTR_ARGS_OK(ctx, name, out);
  return Attr(ctx, ctx->attrs->Int(name, fb ? std::optional(*fb) : std::nullopt), out);
}

weft_status_t AttrInts(weft_rule_ctx* ctx, const char* name, const int64_t** values, int64_t* n) {
  WEFT_ATTR_ARGS_OK(ctx, name, values);
  if (n == nullptr) return Fail(ctx, "attr_ints: n is NULL");
  std::vector<int64_t> v;
  if (weft_status_t s = Attr(ctx, ctx->attrs->Ints(name), &v); s != WEFT_OK) return s;
  ctx->lists.push_back(std::move(v));
  *values = ctx->lists.back().data();
  *n = static_cast<int64_t>(ctx->lists.back().size());
  return WEFT_OK;
}

weft_status_t AttrFloat(weft_rule_ctx* ctx, const char* name, const double* fb, double* out) {
  WEFT_ATTR_ARGS_OK(ctx, name, out);
  return Attr(ctx, ctx->attrs->Float(name, fb ? std::optional(*fb) : std::nullopt), out);
}

weft_status_t AttrBool(weft_rule_ctx* ctx, const char* name, const int32_t* fb, int32_t* out) {
  WEFT_ATTR_ARGS_OK(ctx, name, out);
  bool b = false;
  weft_status_t s =
      Attr(ctx, ctx->attrs->Bool(name, fb ? std::optional(*fb != 0) : std::nullopt), &b);
  *out = b ? 1 : 0;
  return s;
}

weft_status_t AttrString(weft_rule_ctx* ctx, const char* name, const char* fb, const char** out) {
  WEFT_ATTR_ARGS_OK(ctx, name, out);
  std::string v;
  weft_status_t s =
      Attr(ctx, ctx->attrs->Text(name, fb ? std::optional<std::string>(fb) : std::nullopt), &v);
  if (s != WEFT_OK) return s;
  ctx->strings.push_back(std::move(v));
  *out = ctx->strings.back().c_str();
  return WEFT_OK;
}

void RuleError(weft_rule_ctx* ctx, const char* message) {
  if (ctx != nullptr) ctx->error = message ? message : "(no message)";
}

int32_t AttrKind(weft_rule_ctx* ctx, const char* name) {
  if (ctx == nullptr || ctx->attrs == nullptr || name == nullptr) return -1;
  const AttrValue* v = ctx->attrs->Find(name);
  return v ? static_cast<int32_t>(v->index()) : -1;  // the variant's order is WEFT_ATTR_*'s
}

const weft_rules_host_t kHost = {
    .struct_size = sizeof(weft_rules_host_t),
    .add_op = AddOp,
    .add_einsum = AddEinsum,
    .add_alias = AddAlias,
    .register_error = RegisterError,
    .add_output = AddOutput,
    .add_strategy = AddStrategy,
    .add_aligned = AddAligned,
    .attr_int = AttrInt,
    .attr_ints = AttrInts,
    .attr_float = AttrFloat,
    .attr_bool = AttrBool,
    .attr_string = AttrString,
    .rule_error = RuleError,
    .attr_kind = AttrKind,
};

}  // namespace

const weft_rules_host_t* RulesHostTable() { return &kHost; }

DType FromDL(DLDataType t) { return DType{t.code, t.bits, t.lanes}; }
DLDataType ToDL(DType t) { return DLDataType{t.code, t.bits, t.lanes}; }

}  // namespace weft::ops
