/* Weft C ABI: op-sharding rules (SPEC §5; docs/design/rules.md).
 *
 * A rule registry knows operators by name; weft_rules_propagate takes an operator, the layouts
 * of its inputs and its attributes, and returns a strategy: the layout each input must be
 * brought to (run weft_redistribute or a plan to get there), the layouts of the outputs the
 * local kernel's results make up (exact, explicit splits where uneven), and the estimated cost
 * in seconds under the planner's cost model, redistributing the inputs included. Pure
 * metadata: layouts on abstract meshes work, nothing communicates, and every rank given the
 * same arguments gets the same strategy. Results are cached per registry.
 * Every function here is thread-safe and never blocks.
 */
#ifndef WEFT_RULES_H_
#define WEFT_RULES_H_

#include <stddef.h>

#include "weft/halo.h"
#include "weft/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_rules weft_rules_t;       /* a rule registry with its cache */
typedef struct weft_strategy weft_strategy_t; /* one strategy propagate or enumerate found */

/* Attribute kinds (weft_attr_t.kind). */
#define WEFT_ATTR_INT 0    /* value.i */
#define WEFT_ATTR_INTS 1   /* value.ints, n_ints values */
#define WEFT_ATTR_FLOAT 2  /* value.f */
#define WEFT_ATTR_BOOL 3   /* value.i: 0 or 1 */
#define WEFT_ATTR_STRING 4 /* value.s, NUL-terminated */
#define WEFT_ATTR_DTYPE 5  /* value.dtype */

/* One operator attribute, e.g. {"dim", WEFT_ATTR_INT, .i = 1}. Copied by the call. */
typedef struct weft_attr {
  size_t struct_size; /* sizeof(weft_attr_t): arrays of these are walked by this stride */
  const char* name;
  int32_t kind;     /* WEFT_ATTR_* */
  int32_t reserved; /* 0 */
  int64_t i;        /* INT, BOOL */
  double f;         /* FLOAT */
  const int64_t* ints;
  int64_t n_ints;    /* INTS */
  const char* s;     /* STRING */
  DLDataType dtype;  /* DTYPE */
  int32_t reserved2; /* 0 */
} weft_attr_t;

/* A registry holding the built-in operators (weft_rules_list_ops lists them; the families are
 * in docs/design/rules.md: pointwise, matmul/mm/bmm, linear, addmm, baddbmm, einsum, ...). */
WEFT_API weft_status_t weft_rules_create(weft_rules_t** rules);
/* NULL is accepted. Strategies it handed out stay valid. */
WEFT_API weft_status_t weft_rules_destroy(weft_rules_t* rules);

/* The canonical names of the registered operators, sorted, one per line, NUL-terminated:
 * written to buf when len is enough (buf NULL with len 0: a size query), *needed set to the
 * bytes it takes. */
WEFT_API weft_status_t weft_rules_list_ops(const weft_rules_t* rules, char* buf, size_t len,
                                           size_t* needed);

/* The cheapest strategy for operator `op` (a canonical name or an alias) over n_inputs input
 * layouts on one mesh, with n_attrs attributes (attrs may be NULL when n_attrs is 0).
 * WEFT_ERR_INVALID_ARGUMENT: an unknown operator, the wrong number of inputs, inputs on
 * different meshes, shapes or attributes the operator rejects (the message says which). */
WEFT_API weft_status_t weft_rules_propagate(weft_rules_t* rules, const char* op, int32_t n_inputs,
                                            const weft_layout_t* const* inputs,
                                            const weft_attr_t* attrs, int32_t n_attrs,
                                            weft_strategy_t** strategy);

/* Every candidate strategy, cheapest first (ties in the engine's fixed order; the first is
 * propagate's pick). *count is set to the number of candidates; the first min(count, max)
 * are written to out (out may be NULL when max is 0), each to be destroyed by the caller. */
WEFT_API weft_status_t weft_rules_enumerate(weft_rules_t* rules, const char* op, int32_t n_inputs,
                                            const weft_layout_t* const* inputs,
                                            const weft_attr_t* attrs, int32_t n_attrs,
                                            weft_strategy_t** out, int32_t max, int32_t* count);

/* Options of an einsum operator. Zero-initialized (or NULL): linear in every input, every
 * letter shardable — a plain einsum. */
typedef struct weft_einsum_options {
  size_t struct_size;        /* sizeof(weft_einsum_options_t) */
  uint64_t nonlinear_inputs; /* bit i: a Partial on input i does not pass through */
  const char* unshardable;   /* letters no strategy shards (NULL: none) */
} weft_einsum_options_t;

/* Registers operator `name` from an einsum equation ("bhqd,bhkd->bhqk"; no "->": the letters
 * seen once, sorted). WEFT_ERR_INVALID_ARGUMENT for a malformed equation (the message names
 * the column) or a name already registered (naming who registered it). */
WEFT_API weft_status_t weft_rules_register_einsum(weft_rules_t* rules, const char* name,
                                                  const char* equation,
                                                  const weft_einsum_options_t* options);

/* Registers every operator and alias of a rules file (docs/design/rules.md "Rules files":
 * "weft-rules 1", then "einsum NAME EQUATION [linear=..] [unshardable=..]" and
 * "alias NAME TARGET" lines), all or nothing. WEFT_ERR_INVALID_ARGUMENT naming the file, line
 * and column of the first fault. weft_rules_load_string: the same for text in memory, `origin`
 * naming it in messages (NULL: "<string>"). */
WEFT_API weft_status_t weft_rules_load_file(weft_rules_t* rules, const char* path);
WEFT_API weft_status_t weft_rules_load_string(weft_rules_t* rules, const char* text,
                                              const char* origin);

/* Loads a rule plugin (weft/rules_plugin.h) by name — libweft-rules-NAME.so on WEFT_RULES_PATH,
 * then next to libweft — or by path, and registers what it declares, all or nothing. Errors
 * as for backend plugins: WEFT_ERR_NOT_AVAILABLE (every path tried), WEFT_ERR_VERSION_MISMATCH,
 * WEFT_ERR_PLUGIN (no entry symbol, a failing register_ops, with the plugin's message). */
WEFT_API weft_status_t weft_rules_load_plugin(weft_rules_t* rules, const char* name_or_path);

/* Collective over every rank of `ctx`: checks through the store that every rank's registry
 * holds the same operators (names, rules, aliases), so that all pick the same strategies.
 * A difference is the same WEFT_ERR_INVALID_USAGE on every rank, naming the first rank that
 * differs from rank 0 and the first operator that does. Once attached, the registry refuses
 * registrations (WEFT_ERR_INVALID_USAGE). Under the context's timeout. */
WEFT_API weft_status_t weft_rules_attach(weft_rules_t* rules, weft_context_t* ctx);

WEFT_API weft_status_t weft_strategy_num_inputs(const weft_strategy_t* s, int32_t* n);
WEFT_API weft_status_t weft_strategy_num_outputs(const weft_strategy_t* s, int32_t* n);
/* A new layout handle (destroy it) for the layout input i must be brought to. */
WEFT_API weft_status_t weft_strategy_input_layout(const weft_strategy_t* s, int32_t i,
                                                  weft_layout_t** layout);
/* A new layout handle (destroy it) for output i. */
WEFT_API weft_status_t weft_strategy_output_layout(const weft_strategy_t* s, int32_t i,
                                                   weft_layout_t** layout);
/* Windowed operators (conv, pooling, pad, interpolation, neighbourhood attention, stencils;
 * docs/design/rules.md "Windowed operators"): the halo input i needs, as a descriptor for
 * weft_halo_plan_create over the strategy's input layout i (desc->struct_size set by the
 * caller; the other fields are written). desc->ndims == 0: none, and the local kernel runs on
 * the local block with the operator's own padding. Otherwise every windowed dim of the input is
 * listed, with explicit windows and the operator's padding as boundary rows: the kernel runs
 * without padding on the padded block (weft_halo_exchange) and computes exactly this rank's
 * block of the output layout; the backward pass hands the gradient of the padded block to
 * weft_halo_accumulate over the same plan. desc->dims and its tables point into the strategy
 * and stay valid while it lives. */
WEFT_API weft_status_t weft_strategy_input_halo(const weft_strategy_t* s, int32_t i,
                                                weft_halo_desc_t* desc);
/* Estimated seconds: redistributing the inputs, the operator's own communication and its
 * halo exchanges. */
WEFT_API weft_status_t weft_strategy_cost(const weft_strategy_t* s, double* seconds);
/* A description for people, as weft_rules_list_ops writes text. */
WEFT_API weft_status_t weft_strategy_describe(const weft_strategy_t* s, char* buf, size_t len,
                                              size_t* needed);
/* NULL is accepted. */
WEFT_API weft_status_t weft_strategy_destroy(weft_strategy_t* s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_RULES_H_ */
