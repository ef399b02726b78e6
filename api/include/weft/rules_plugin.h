/* Weft rule plugin ABI, version 1 (SPEC §5, §6.6; docs/design/rules.md).
 *
 * A rule plugin is a shared object, libweft-rules-<name>.so, that exports
 *     const weft_rules_plugin_t* weft_rules_plugin_v1(void);
 * weft_rules_load_plugin finds it by name on WEFT_RULES_PATH, then next to libweft, or by path,
 * through the loader backend plugins use (same version probing, same messages).
 *
 * This header is all a rule plugin includes from Weft (it pulls in status.h, types.h, DLPack).
 *
 * Model:
 *  - register_ops() is called once per registry that loads the plugin, with the host's table
 *    and a registrar. It adds operators (a rule callback, optionally a reference kernel),
 *    einsum operators and aliases. Everything it added lands together when it returns WEFT_OK
 *    and nothing does otherwise (the registry is unchanged by a failed load).
 *  - A rule is written for ONE mesh dim: given the inputs' global shapes and dtypes and the
 *    attributes, it declares the outputs (add_output) and lists dim strategies (add_strategy):
 *    one placement code per input, then per output, valid on any single mesh dim — R, S(dim),
 *    P(op). The host expands them across the mesh dims and picks the cheapest. List the all-R
 *    strategy first. add_aligned groups tensor dims that must be cut alike (an input dim and
 *    the output dim it becomes), so uneven and explicit splits carry through exactly.
 *  - Rules are pure and deterministic: every rank must get the same answer from the same
 *    arguments. They are called from any thread, concurrently.
 *  - A reference kernel computes the operator on host tensors of doubles, for the validation
 *    harness (rulecheck): on one process with the global inputs, and per rank on the local
 *    blocks (offset says where a block sits in the global tensor). The host allocates the
 *    outputs with the shapes the strategy's output layouts give.
 *  - Errors: return a negative weft_status_t, after host->rule_error (or register_error) with
 *    a message. No exception may cross this ABI (the plugin kit's Guard catches them). A rule
 *    that returns codes the tensors cannot take fails the propagate with WEFT_ERR_INTERNAL
 *    naming the plugin and operator.
 */
#ifndef WEFT_RULES_PLUGIN_H_
#define WEFT_RULES_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "weft/status.h"
#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_RULES_PLUGIN_ABI_MAJOR 1
#define WEFT_RULES_PLUGIN_ABI_MINOR 0
#define WEFT_RULES_PLUGIN_ABI_VERSION \
  ((WEFT_RULES_PLUGIN_ABI_MAJOR << 16) | WEFT_RULES_PLUGIN_ABI_MINOR)

/* Placement codes (weft_rule_code_t.kind). */
#define WEFT_CODE_R 0 /* replicate */
#define WEFT_CODE_S 1 /* shard tensor dim `dim` */
#define WEFT_CODE_P 2 /* partial, reduced with `op` (weft_reduce_op_t) */

typedef struct weft_rule_code {
  int32_t kind;
  int32_t dim; /* WEFT_CODE_S */
  int32_t op;  /* WEFT_CODE_P */
  int32_t reserved;
} weft_rule_code_t;

/* An input as a rule sees it: the global shape and dtype. */
typedef struct weft_rule_tensor {
  int32_t ndim;
  int32_t reserved;
  const int64_t* shape;
  DLDataType dtype;
} weft_rule_tensor_t;

/* A tensor a reference kernel reads (inputs) or fills (outputs): dense, row-major. */
typedef struct weft_kernel_tensor {
  int32_t ndim;
  int32_t reserved;
  const int64_t* shape;
  const int64_t* offset; /* where element [0,...,0] sits in the global tensor */
  double* values;        /* numel values; inputs: read only */
  int64_t numel;
} weft_kernel_tensor_t;

typedef struct weft_rule_ctx weft_rule_ctx_t;               /* one rule or kernel call */
typedef struct weft_rules_registrar weft_rules_registrar_t; /* one register_ops call */

typedef weft_status_t (*weft_rule_fn)(void* user, const weft_rule_tensor_t* inputs,
                                      int32_t n_inputs, weft_rule_ctx_t* ctx);
typedef weft_status_t (*weft_rule_kernel_fn)(void* user, const weft_kernel_tensor_t* inputs,
                                             int32_t n_inputs, weft_kernel_tensor_t* outputs,
                                             int32_t n_outputs, weft_rule_ctx_t* ctx);

typedef struct weft_rule_op {
  size_t struct_size; /* sizeof(weft_rule_op_t) */
  const char* name;
  int32_t min_inputs, max_inputs;
  const char* const* key_attrs; /* the attributes the rule reads: they key the cache */
  int32_t n_key_attrs;
  int32_t reserved;
  weft_rule_fn rule;
  weft_rule_kernel_fn kernel; /* may be NULL: rulecheck then skips the operator */
  void* user;                 /* passed back to rule and kernel */
} weft_rule_op_t;

/* What the host offers a plugin. Valid while the plugin is loaded. */
typedef struct weft_rules_host {
  size_t struct_size;
  /* Registration (inside register_ops only). name and strings are copied. */
  weft_status_t (*add_op)(weft_rules_registrar_t* r, const weft_rule_op_t* op);
  /* An einsum operator: bit i of nonlinear_inputs set: a Partial on input i does not pass;
   * unshardable: letters no strategy shards (NULL: none). */
  weft_status_t (*add_einsum)(weft_rules_registrar_t* r, const char* name, const char* equation,
                              uint64_t nonlinear_inputs, const char* unshardable);
  weft_status_t (*add_alias)(weft_rules_registrar_t* r, const char* alias, const char* target);
  void (*register_error)(weft_rules_registrar_t* r, const char* message);

  /* Inside a rule. */
  weft_status_t (*add_output)(weft_rule_ctx_t* ctx, int32_t ndim, const int64_t* shape,
                              DLDataType dtype);
  /* n_codes: inputs + outputs, inputs first. */
  weft_status_t (*add_strategy)(weft_rule_ctx_t* ctx, const weft_rule_code_t* codes,
                                int32_t n_codes);
  /* Tensor i is an input below n_inputs, else output i - n_inputs. */
  weft_status_t (*add_aligned)(weft_rule_ctx_t* ctx, const int32_t* tensors, const int32_t* dims,
                               int32_t n);

  /* Attributes (rules and kernels). fallback NULL: an absent attribute is an error. A value of
   * another kind is an error naming the attribute. Returned pointers live as long as ctx. */
  weft_status_t (*attr_int)(weft_rule_ctx_t* ctx, const char* name, const int64_t* fallback,
                            int64_t* out);
  weft_status_t (*attr_ints)(weft_rule_ctx_t* ctx, const char* name, const int64_t** values,
                             int64_t* n);
  weft_status_t (*attr_float)(weft_rule_ctx_t* ctx, const char* name, const double* fallback,
                              double* out);
  weft_status_t (*attr_bool)(weft_rule_ctx_t* ctx, const char* name, const int32_t* fallback,
                             int32_t* out);
  weft_status_t (*attr_string)(weft_rule_ctx_t* ctx, const char* name, const char* fallback,
                               const char** out);
  void (*rule_error)(weft_rule_ctx_t* ctx, const char* message);
  /* -1 when `name` is absent, else its kind: 0 int, 1 int list, 2 float, 3 bool, 4 string,
   * 5 dtype (weft_attr_t.kind's WEFT_ATTR_* numbers). */
  int32_t (*attr_kind)(weft_rule_ctx_t* ctx, const char* name);
} weft_rules_host_t;

typedef struct weft_rules_plugin {
  uint32_t struct_size; /* sizeof(weft_rules_plugin_t) */
  uint32_t abi_version; /* WEFT_RULES_PLUGIN_ABI_VERSION */
  const char* name;
  weft_status_t (*register_ops)(const weft_rules_host_t* host, weft_rules_registrar_t* r);
} weft_rules_plugin_t;

#define WEFT_RULES_PLUGIN_V1_0_SIZE (offsetof(weft_rules_plugin_t, register_ops) + sizeof(void*))

#ifdef __cplusplus
}
#endif

#endif /* WEFT_RULES_PLUGIN_H_ */
