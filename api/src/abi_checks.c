/* Pins the size and field offsets of every ABI struct: changing one breaks the build, because
 * programs compiled against an older header would read the wrong bytes. */
#include <stddef.h>

#include "weft/backend_plugin.h"
#include "weft/weft.h"

#define WEFT_PIN(T, size) _Static_assert(sizeof(T) == (size), #T " changed size")
#define WEFT_AT(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f " moved")

WEFT_PIN(weft_placement_t, 16);
WEFT_AT(weft_placement_t, kind, 0);
WEFT_AT(weft_placement_t, dim, 4);
WEFT_AT(weft_placement_t, reduce_op, 8);
WEFT_AT(weft_placement_t, reserved, 12);

WEFT_PIN(weft_call_options_t, 16);
WEFT_AT(weft_call_options_t, struct_size, 0);
WEFT_AT(weft_call_options_t, timeout_ms, 8);

WEFT_PIN(weft_mesh_options_t, 16);
WEFT_AT(weft_mesh_options_t, struct_size, 0);
WEFT_AT(weft_mesh_options_t, dim_names, 8);

WEFT_PIN(weft_plan_options_t, 24);
WEFT_AT(weft_plan_options_t, struct_size, 0);
WEFT_AT(weft_plan_options_t, rank, 4);
WEFT_AT(weft_plan_options_t, reserved, 8);
WEFT_AT(weft_plan_options_t, extra_bytes_cap, 16);

WEFT_PIN(weft_plan_stats_t, 40);
WEFT_AT(weft_plan_stats_t, struct_size, 0);
WEFT_AT(weft_plan_stats_t, steps, 8);
WEFT_AT(weft_plan_stats_t, send_bytes, 16);
WEFT_AT(weft_plan_stats_t, recv_bytes, 24);
WEFT_AT(weft_plan_stats_t, extra_bytes, 32);

/* The backend plugin ABI (backend_plugin.h): the table's versioned tail and, from 1.3, the
 * parameter descriptors. */
WEFT_PIN(weft_backend_plugin_t, 240);
WEFT_AT(weft_backend_plugin_t, send_strided, 208);
WEFT_AT(weft_backend_plugin_t, params, 224);
WEFT_AT(weft_backend_plugin_t, num_params, 232);
_Static_assert(WEFT_BACKEND_PLUGIN_V1_0_SIZE == 208 && WEFT_BACKEND_PLUGIN_V1_2_SIZE == 224,
               "the sizes of older plugin tables are fixed");
WEFT_PIN(weft_bk_param_t, 64);
WEFT_AT(weft_bk_param_t, struct_size, 0);
WEFT_AT(weft_bk_param_t, type, 4);
WEFT_AT(weft_bk_param_t, name, 8);
WEFT_AT(weft_bk_param_t, default_value, 16);
WEFT_AT(weft_bk_param_t, min, 24);
WEFT_AT(weft_bk_param_t, max, 32);
WEFT_AT(weft_bk_param_t, choices, 40);
WEFT_AT(weft_bk_param_t, doc, 48);
WEFT_AT(weft_bk_param_t, audience, 56);
WEFT_AT(weft_bk_param_t, flags, 60);
_Static_assert(WEFT_BK_PARAM_ENUM == 5 && WEFT_BK_PARAM_LAUNCH == 3,
               "parameter types and audiences are never renumbered");

/* DLPack structs cross the ABI too; Weft relies on the 0.6 layout. */
WEFT_PIN(DLDataType, 4);
WEFT_PIN(DLDevice, 8);
WEFT_PIN(DLTensor, 48);
WEFT_AT(DLTensor, data, 0);
WEFT_AT(DLTensor, device, 8);
WEFT_AT(DLTensor, ndim, 16);
WEFT_AT(DLTensor, dtype, 20);
WEFT_AT(DLTensor, shape, 24);
WEFT_AT(DLTensor, strides, 32);
WEFT_AT(DLTensor, byte_offset, 40);

/* The backend plugin ABI's per-op arguments: 1.0-1.2 end at seq, 1.3 appends flags. */
WEFT_PIN(weft_bk_op_t, 48);
WEFT_AT(weft_bk_op_t, struct_size, 0);
WEFT_AT(weft_bk_op_t, device, 8);
WEFT_AT(weft_bk_op_t, stream, 16);
WEFT_AT(weft_bk_op_t, timeout_ms, 24);
WEFT_AT(weft_bk_op_t, seq, 32);
WEFT_AT(weft_bk_op_t, flags, 40);
_Static_assert(WEFT_BK_OP_V1_0_SIZE == 40, "the ABI 1.0 weft_bk_op_t ends at seq");
_Static_assert(WEFT_BK_CAP_SIZE_SAFE == (1ull << 13) && WEFT_BK_OP_UNVERIFIED_SIZE == 1u,
               "plugin ABI bits are never renumbered");

/* The C++ inside mirrors the status codes; keep them from drifting. */
_Static_assert(WEFT_ERR_INTERNAL == -13, "status codes are never renumbered");
_Static_assert(WEFT_MAX_MESH_NDIM == 16 && WEFT_MAX_TENSOR_NDIM == 32, "limits changed");
