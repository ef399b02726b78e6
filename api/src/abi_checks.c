/* Pins the size and every field offset of every struct in the public ABI (every header in
 * api/include/weft, backend_plugin.h included, and the DLPack structs that cross it): changing
 * one breaks the build, because programs and plugins compiled against an older header would
 * read the wrong bytes. A new field is appended (struct_size says how much of it a caller
 * knows) and gets its line here; a new public struct gets its block. */
#include <stddef.h>
#include <stdint.h>

#include "weft/backend_plugin.h"
#include "weft/rules_plugin.h"
#include "weft/weft.h"

/* The values below are those of the LP64 data model (x86-64, aarch64: 8-byte pointers, longs
 * and size_t, 4-byte ints and enums, 8-byte alignment of int64_t and double). Another data
 * model needs its own table, not a silent pass. */
#if !defined(__SIZEOF_POINTER__) || __SIZEOF_POINTER__ != 8 || __SIZEOF_LONG__ != 8 || \
    __SIZEOF_INT__ != 4 || __SIZEOF_SIZE_T__ != 8
#error "abi_checks.c pins LP64 layouts; add the values of this data model"
#endif
_Static_assert(_Alignof(int64_t) == 8 && _Alignof(uint64_t) == 8 && _Alignof(double) == 8 &&
                   _Alignof(void*) == 8 && sizeof(DLDeviceType) == 4,
               "the LP64 alignments the pins below assume");

#define WEFT_PIN(T, size) _Static_assert(sizeof(T) == (size), #T " changed size")
#define WEFT_AT(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f " moved")

/* types.h */
WEFT_PIN(weft_placement_t, 16);
WEFT_AT(weft_placement_t, kind, 0);
WEFT_AT(weft_placement_t, dim, 4);
WEFT_AT(weft_placement_t, reduce_op, 8);
WEFT_AT(weft_placement_t, reserved, 12);

WEFT_PIN(weft_call_options_t, 16);
WEFT_AT(weft_call_options_t, struct_size, 0);
WEFT_AT(weft_call_options_t, reserved, 4);
WEFT_AT(weft_call_options_t, timeout_ms, 8);

/* context.h */
WEFT_PIN(weft_context_options_t, 48);
WEFT_AT(weft_context_options_t, struct_size, 0);
WEFT_AT(weft_context_options_t, rank, 4);
WEFT_AT(weft_context_options_t, world_size, 8);
WEFT_AT(weft_context_options_t, store_port, 12);
WEFT_AT(weft_context_options_t, store_host, 16);
WEFT_AT(weft_context_options_t, backend, 24);
WEFT_AT(weft_context_options_t, timeout_ms, 32);
WEFT_AT(weft_context_options_t, connect_timeout_ms, 40);

/* mesh.h */
WEFT_PIN(weft_mesh_options_t, 16);
WEFT_AT(weft_mesh_options_t, struct_size, 0);
WEFT_AT(weft_mesh_options_t, reserved, 4);
WEFT_AT(weft_mesh_options_t, dim_names, 8);

/* redistribute.h */
WEFT_PIN(weft_plan_options_t, 24);
WEFT_AT(weft_plan_options_t, struct_size, 0);
WEFT_AT(weft_plan_options_t, rank, 4);
WEFT_AT(weft_plan_options_t, reserved, 8);
WEFT_AT(weft_plan_options_t, extra_bytes_cap, 16);

WEFT_PIN(weft_plan_stats_t, 40);
WEFT_AT(weft_plan_stats_t, struct_size, 0);
WEFT_AT(weft_plan_stats_t, reserved, 4);
WEFT_AT(weft_plan_stats_t, steps, 8);
WEFT_AT(weft_plan_stats_t, send_bytes, 16);
WEFT_AT(weft_plan_stats_t, recv_bytes, 24);
WEFT_AT(weft_plan_stats_t, extra_bytes, 32);

/* halo.h */
WEFT_PIN(weft_halo_dim_t, 56);
WEFT_AT(weft_halo_dim_t, dim, 0);
WEFT_AT(weft_halo_dim_t, boundary_lo, 4);
WEFT_AT(weft_halo_dim_t, boundary_hi, 8);
WEFT_AT(weft_halo_dim_t, reserved, 12);
WEFT_AT(weft_halo_dim_t, lo, 16);
WEFT_AT(weft_halo_dim_t, hi, 24);
WEFT_AT(weft_halo_dim_t, pad_lo, 32);
WEFT_AT(weft_halo_dim_t, pad_hi, 40);
WEFT_AT(weft_halo_dim_t, windows, 48);

WEFT_PIN(weft_halo_desc_t, 40);
WEFT_AT(weft_halo_desc_t, struct_size, 0);
WEFT_AT(weft_halo_desc_t, ndims, 4);
WEFT_AT(weft_halo_desc_t, dims, 8);
WEFT_AT(weft_halo_desc_t, stencil, 16);
WEFT_AT(weft_halo_desc_t, transport, 20);
WEFT_AT(weft_halo_desc_t, deterministic, 24);
WEFT_AT(weft_halo_desc_t, reserved, 28);
WEFT_AT(weft_halo_desc_t, constant_value, 32);

/* halo_windows.h */
WEFT_PIN(weft_window_op_t, 56);
WEFT_AT(weft_window_op_t, struct_size, 0);
WEFT_AT(weft_window_op_t, kind, 4);
WEFT_AT(weft_window_op_t, kernel, 8);
WEFT_AT(weft_window_op_t, stride, 16);
WEFT_AT(weft_window_op_t, dilation, 24);
WEFT_AT(weft_window_op_t, pad_lo, 32);
WEFT_AT(weft_window_op_t, pad_hi, 40);
WEFT_AT(weft_window_op_t, out_extent, 48);

/* backend_plugin.h: the parameter descriptors (1.3), the host's callbacks, init's and every
 * op's arguments, the strided layout (1.1) and the table with its versioned tail. */
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

WEFT_PIN(weft_bk_host_api_t, 96);
WEFT_AT(weft_bk_host_api_t, struct_size, 0);
WEFT_AT(weft_bk_host_api_t, abi_version, 4);
WEFT_AT(weft_bk_host_api_t, host_data, 8);
WEFT_AT(weft_bk_host_api_t, log, 16);
WEFT_AT(weft_bk_host_api_t, set_error, 24);
WEFT_AT(weft_bk_host_api_t, store_set, 32);
WEFT_AT(weft_bk_host_api_t, store_get, 40);
WEFT_AT(weft_bk_host_api_t, store_wait, 48);
WEFT_AT(weft_bk_host_api_t, store_add, 56);
WEFT_AT(weft_bk_host_api_t, alloc, 64);
WEFT_AT(weft_bk_host_api_t, free, 72);
WEFT_AT(weft_bk_host_api_t, reduce, 80);
WEFT_AT(weft_bk_host_api_t, reduce_kernel, 88);

WEFT_PIN(weft_attr_t, 72);
WEFT_AT(weft_attr_t, struct_size, 0);
WEFT_AT(weft_attr_t, name, 8);
WEFT_AT(weft_attr_t, kind, 16);
WEFT_AT(weft_attr_t, reserved, 20);
WEFT_AT(weft_attr_t, i, 24);
WEFT_AT(weft_attr_t, f, 32);
WEFT_AT(weft_attr_t, ints, 40);
WEFT_AT(weft_attr_t, n_ints, 48);
WEFT_AT(weft_attr_t, s, 56);
WEFT_AT(weft_attr_t, dtype, 64);
WEFT_AT(weft_attr_t, reserved2, 68);
WEFT_PIN(weft_einsum_options_t, 24);
WEFT_AT(weft_einsum_options_t, struct_size, 0);
WEFT_AT(weft_einsum_options_t, nonlinear_inputs, 8);
WEFT_AT(weft_einsum_options_t, unshardable, 16);

/* rules_plugin.h */
WEFT_PIN(weft_rule_code_t, 16);
WEFT_AT(weft_rule_code_t, kind, 0);
WEFT_AT(weft_rule_code_t, dim, 4);
WEFT_AT(weft_rule_code_t, op, 8);
WEFT_AT(weft_rule_code_t, reserved, 12);
WEFT_PIN(weft_rule_tensor_t, 24);
WEFT_AT(weft_rule_tensor_t, ndim, 0);
WEFT_AT(weft_rule_tensor_t, shape, 8);
WEFT_AT(weft_rule_tensor_t, dtype, 16);
WEFT_PIN(weft_kernel_tensor_t, 40);
WEFT_AT(weft_kernel_tensor_t, ndim, 0);
WEFT_AT(weft_kernel_tensor_t, shape, 8);
WEFT_AT(weft_kernel_tensor_t, offset, 16);
WEFT_AT(weft_kernel_tensor_t, values, 24);
WEFT_AT(weft_kernel_tensor_t, numel, 32);
WEFT_PIN(weft_rule_op_t, 64);
WEFT_AT(weft_rule_op_t, struct_size, 0);
WEFT_AT(weft_rule_op_t, name, 8);
WEFT_AT(weft_rule_op_t, min_inputs, 16);
WEFT_AT(weft_rule_op_t, max_inputs, 20);
WEFT_AT(weft_rule_op_t, key_attrs, 24);
WEFT_AT(weft_rule_op_t, n_key_attrs, 32);
WEFT_AT(weft_rule_op_t, rule, 40);
WEFT_AT(weft_rule_op_t, kernel, 48);
WEFT_AT(weft_rule_op_t, user, 56);
WEFT_PIN(weft_rules_host_t, 120);
WEFT_AT(weft_rules_host_t, struct_size, 0);
WEFT_AT(weft_rules_host_t, add_op, 8);
WEFT_AT(weft_rules_host_t, add_einsum, 16);
WEFT_AT(weft_rules_host_t, add_alias, 24);
WEFT_AT(weft_rules_host_t, register_error, 32);
WEFT_AT(weft_rules_host_t, add_output, 40);
WEFT_AT(weft_rules_host_t, add_strategy, 48);
WEFT_AT(weft_rules_host_t, add_aligned, 56);
WEFT_AT(weft_rules_host_t, attr_int, 64);
WEFT_AT(weft_rules_host_t, attr_ints, 72);
WEFT_AT(weft_rules_host_t, attr_float, 80);
WEFT_AT(weft_rules_host_t, attr_bool, 88);
WEFT_AT(weft_rules_host_t, attr_string, 96);
WEFT_AT(weft_rules_host_t, rule_error, 104);
WEFT_AT(weft_rules_host_t, attr_kind, 112);
WEFT_PIN(weft_rules_plugin_t, 24);
WEFT_AT(weft_rules_plugin_t, struct_size, 0);
WEFT_AT(weft_rules_plugin_t, abi_version, 4);
WEFT_AT(weft_rules_plugin_t, name, 8);
WEFT_AT(weft_rules_plugin_t, register_ops, 16);

WEFT_PIN(weft_bk_init_args_t, 32);
WEFT_AT(weft_bk_init_args_t, struct_size, 0);
WEFT_AT(weft_bk_init_args_t, world_rank, 4);
WEFT_AT(weft_bk_init_args_t, world_size, 8);
WEFT_AT(weft_bk_init_args_t, local_rank, 12);
WEFT_AT(weft_bk_init_args_t, local_world_size, 16);
WEFT_AT(weft_bk_init_args_t, reserved, 20);
WEFT_AT(weft_bk_init_args_t, timeout_ms, 24);

WEFT_PIN(weft_bk_op_t, 48);
WEFT_AT(weft_bk_op_t, struct_size, 0);
WEFT_AT(weft_bk_op_t, reserved, 4);
WEFT_AT(weft_bk_op_t, device, 8);
WEFT_AT(weft_bk_op_t, stream, 16);
WEFT_AT(weft_bk_op_t, timeout_ms, 24);
WEFT_AT(weft_bk_op_t, seq, 32);
WEFT_AT(weft_bk_op_t, flags, 40);
WEFT_AT(weft_bk_op_t, reserved2, 44);

WEFT_PIN(weft_bk_strided_t, 144);
WEFT_AT(weft_bk_strided_t, struct_size, 0);
WEFT_AT(weft_bk_strided_t, ndim, 4);
WEFT_AT(weft_bk_strided_t, item_bytes, 8);
WEFT_AT(weft_bk_strided_t, shape, 16);
WEFT_AT(weft_bk_strided_t, strides, 80);

WEFT_PIN(weft_backend_plugin_t, 240);
WEFT_AT(weft_backend_plugin_t, struct_size, 0);
WEFT_AT(weft_backend_plugin_t, abi_version, 4);
WEFT_AT(weft_backend_plugin_t, name, 8);
WEFT_AT(weft_backend_plugin_t, capabilities, 16);
WEFT_AT(weft_backend_plugin_t, init, 24);
WEFT_AT(weft_backend_plugin_t, finalize, 32);
WEFT_AT(weft_backend_plugin_t, abort, 40);
WEFT_AT(weft_backend_plugin_t, async_error, 48);
WEFT_AT(weft_backend_plugin_t, comm_create, 56);
WEFT_AT(weft_backend_plugin_t, comm_destroy, 64);
WEFT_AT(weft_backend_plugin_t, allreduce, 72);
WEFT_AT(weft_backend_plugin_t, allgather, 80);
WEFT_AT(weft_backend_plugin_t, allgatherv, 88);
WEFT_AT(weft_backend_plugin_t, reduce_scatter, 96);
WEFT_AT(weft_backend_plugin_t, reduce_scatterv, 104);
WEFT_AT(weft_backend_plugin_t, alltoall, 112);
WEFT_AT(weft_backend_plugin_t, alltoallv, 120);
WEFT_AT(weft_backend_plugin_t, broadcast, 128);
WEFT_AT(weft_backend_plugin_t, barrier, 136);
WEFT_AT(weft_backend_plugin_t, send, 144);
WEFT_AT(weft_backend_plugin_t, recv, 152);
WEFT_AT(weft_backend_plugin_t, group_start, 160);
WEFT_AT(weft_backend_plugin_t, group_end, 168);
WEFT_AT(weft_backend_plugin_t, request_test, 176);
WEFT_AT(weft_backend_plugin_t, request_wait, 184);
WEFT_AT(weft_backend_plugin_t, request_cancel, 192);
WEFT_AT(weft_backend_plugin_t, request_free, 200);
WEFT_AT(weft_backend_plugin_t, send_strided, 208);
WEFT_AT(weft_backend_plugin_t, recv_strided, 216);
WEFT_AT(weft_backend_plugin_t, params, 224);
WEFT_AT(weft_backend_plugin_t, num_params, 232);
_Static_assert(WEFT_BACKEND_PLUGIN_V1_0_SIZE == 208 && WEFT_BACKEND_PLUGIN_V1_2_SIZE == 224,
               "the sizes of older plugin tables are fixed");
_Static_assert(WEFT_BK_OP_V1_0_SIZE == 40, "the ABI 1.0 weft_bk_op_t ends at seq");
_Static_assert(WEFT_BK_MAX_DIMS == 8, "weft_bk_strided_t's arrays are part of its size");
_Static_assert(WEFT_BK_PARAM_ENUM == 5 && WEFT_BK_PARAM_LAUNCH == 3,
               "parameter types and audiences are never renumbered");
_Static_assert(WEFT_BK_CAP_SIZE_SAFE == (1ull << 13) && WEFT_BK_OP_UNVERIFIED_SIZE == 1u,
               "plugin ABI bits are never renumbered");

/* DLPack structs cross the ABI too; Weft relies on the 0.6 layout. */
WEFT_PIN(DLDataType, 4);
WEFT_AT(DLDataType, code, 0);
WEFT_AT(DLDataType, bits, 1);
WEFT_AT(DLDataType, lanes, 2);

WEFT_PIN(DLDevice, 8);
WEFT_AT(DLDevice, device_type, 0);
WEFT_AT(DLDevice, device_id, 4);

WEFT_PIN(DLTensor, 48);
WEFT_AT(DLTensor, data, 0);
WEFT_AT(DLTensor, device, 8);
WEFT_AT(DLTensor, ndim, 16);
WEFT_AT(DLTensor, dtype, 20);
WEFT_AT(DLTensor, shape, 24);
WEFT_AT(DLTensor, strides, 32);
WEFT_AT(DLTensor, byte_offset, 40);

/* The C++ inside mirrors the status codes; keep them from drifting. */
_Static_assert(WEFT_ERR_INTERNAL == -13, "status codes are never renumbered");
_Static_assert(WEFT_MAX_MESH_NDIM == 16 && WEFT_MAX_TENSOR_NDIM == 32, "limits changed");

/* checkpoint.h */
WEFT_PIN(weft_checkpoint_save_options_t, 24);
WEFT_AT(weft_checkpoint_save_options_t, struct_size, 0);
WEFT_AT(weft_checkpoint_save_options_t, overwrite, 4);
WEFT_AT(weft_checkpoint_save_options_t, timeout_ms, 8);
WEFT_AT(weft_checkpoint_save_options_t, stream, 16);

WEFT_PIN(weft_checkpoint_load_options_t, 24);
WEFT_AT(weft_checkpoint_load_options_t, struct_size, 0);
WEFT_AT(weft_checkpoint_load_options_t, verify, 4);
WEFT_AT(weft_checkpoint_load_options_t, timeout_ms, 8);
WEFT_AT(weft_checkpoint_load_options_t, stream, 16);

WEFT_PIN(weft_checkpoint_tensor_info_t, 672);
WEFT_AT(weft_checkpoint_tensor_info_t, struct_size, 0);
WEFT_AT(weft_checkpoint_tensor_info_t, ndim, 4);
WEFT_AT(weft_checkpoint_tensor_info_t, dtype, 8);
WEFT_AT(weft_checkpoint_tensor_info_t, mesh_ndim, 12);
WEFT_AT(weft_checkpoint_tensor_info_t, num_boxes, 16);
WEFT_AT(weft_checkpoint_tensor_info_t, nbytes, 24);
WEFT_AT(weft_checkpoint_tensor_info_t, shape, 32);
WEFT_AT(weft_checkpoint_tensor_info_t, mesh_shape, 288);
WEFT_AT(weft_checkpoint_tensor_info_t, placements, 416);
