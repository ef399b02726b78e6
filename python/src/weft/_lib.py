"""Loading libweft and declaring the C ABI (api/include/weft/*.h) for ctypes.

Only the public headers are mirrored here: the structs below copy their layouts field by field
(the headers' static_asserts pin them), and every function gets its argtypes and restype so
that ctypes converts and checks arguments instead of guessing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import POINTER, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_uint16
from ctypes import c_uint32, c_uint64, c_void_p
from pathlib import Path
from typing import List, Optional

# --- DLPack (dlpack/dlpack.h, v0.6+: DLDevice, DLDataType, DLTensor, DLManagedTensor) -------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


# --- weft/types.h and the option structs ------------------------------------------------------


class Placement_t(ctypes.Structure):
    _fields_ = [("kind", c_int32), ("dim", c_int32), ("reduce_op", c_int32), ("reserved", c_int32)]


class CallOptions_t(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("reserved", c_uint32), ("timeout_ms", c_int64)]


class ContextOptions_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("rank", c_int32),
        ("world_size", c_int32),
        ("store_port", c_int32),
        ("store_host", c_char_p),
        ("backend", c_char_p),
        ("timeout_ms", c_int64),
        ("connect_timeout_ms", c_int64),
    ]


class MeshOptions_t(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("reserved", c_uint32), ("dim_names", POINTER(c_char_p))]


class PlanOptions_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("rank", c_int32),
        ("reserved", c_uint64),
        ("extra_bytes_cap", c_int64),
    ]


class PlanStats_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("reserved", c_uint32),
        ("steps", c_int64),
        ("send_bytes", c_int64),
        ("recv_bytes", c_int64),
        ("extra_bytes", c_int64),
    ]


class HaloDim_t(ctypes.Structure):
    _fields_ = [
        ("dim", c_int32),
        ("boundary_lo", c_int32),
        ("boundary_hi", c_int32),
        ("reserved", c_int32),
        ("lo", c_int64),
        ("hi", c_int64),
        ("pad_lo", c_int64),
        ("pad_hi", c_int64),
        ("windows", POINTER(c_int64)),
    ]


class HaloDesc_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("ndims", c_int32),
        ("dims", POINTER(HaloDim_t)),
        ("stencil", c_int32),
        ("transport", c_int32),
        ("deterministic", c_int32),
        ("reserved", c_int32),
        ("constant_value", c_double),
    ]


class WindowOp_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_uint32),
        ("kind", c_int32),
        ("kernel", c_int64),
        ("stride", c_int64),
        ("dilation", c_int64),
        ("pad_lo", c_int64),
        ("pad_hi", c_int64),
        ("out_extent", c_int64),
    ]


class Attr_t(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("kind", c_int32),
        ("reserved", c_int32),
        ("i", c_int64),
        ("f", c_double),
        ("ints", POINTER(c_int64)),
        ("n_ints", c_int64),
        ("s", c_char_p),
        ("dtype", DLDataType),
        ("reserved2", c_int32),
    ]


H = c_void_p  # every handle: a value, never dereferenced
PH = POINTER(c_void_p)
P64 = POINTER(c_int64)
P32 = POINTER(c_int32)
PDL = POINTER(DLTensor)
PCO = POINTER(CallOptions_t)
TAIL = [c_void_p, PCO, PH]  # WEFT_COLLECTIVE_TAIL: stream, opts, work
TEXT = [c_char_p, c_size_t, POINTER(c_size_t)]  # (buf, len, needed)
S = c_int32

_PROTOTYPES = {
    "weft_abi_version": (c_uint32, []),
    "weft_version_string": (c_char_p, []),
    "weft_status_string": (c_char_p, [S]),
    "weft_last_error": (c_char_p, []),
    "weft_context_create": (S, [POINTER(ContextOptions_t), PH]),
    "weft_context_destroy": (S, [H]),
    "weft_context_rank": (S, [H, P32]),
    "weft_context_world_size": (S, [H, P32]),
    "weft_context_backend_name": (S, [H] + TEXT),
    "weft_context_abort": (S, [H]),
    "weft_context_error": (S, [H, P32, P32] + TEXT),
    "weft_work_wait": (S, [H, c_int64]),
    "weft_work_test": (S, [H, P32]),
    "weft_work_release": (S, [H]),
    "weft_mesh_create_ex": (S, [H, c_int32, P64, P32, POINTER(MeshOptions_t), PH]),
    "weft_mesh_destroy": (S, [H]),
    "weft_mesh_ndim": (S, [H, P32]),
    "weft_mesh_shape": (S, [H, P64]),
    "weft_mesh_size": (S, [H, P64]),
    "weft_mesh_coordinate": (S, [H, c_int32, P64]),
    "weft_mesh_contains": (S, [H, c_int32, P32]),
    "weft_mesh_rank_at": (S, [H, P64, P32]),
    "weft_mesh_group": (S, [H, c_int32, c_int32, P32, c_int64]),
    "weft_mesh_slice": (S, [H, c_int32, P32, c_int32, PH]),
    "weft_mesh_slice_by_names": (S, [H, c_int32, POINTER(c_char_p), c_int32, PH]),
    "weft_mesh_flatten": (S, [H, c_int32, c_int32, c_char_p, PH]),
    "weft_mesh_dim_index": (S, [H, c_char_p, P32]),
    "weft_mesh_dim_name": (S, [H, c_int32] + TEXT),
    "weft_mesh_equal": (S, [H, H, P32]),
    "weft_mesh_describe": (S, [H] + TEXT),
    "weft_layout_create_ragged": (
        S,
        [H, c_int32, P64, DLDataType, POINTER(Placement_t), POINTER(P64), P64, PH],
    ),
    "weft_layout_local_shape": (S, [H, c_int32, P64, P64]),
    "weft_layout_destroy": (S, [H]),
    "weft_layout_ndim": (S, [H, P32]),
    "weft_layout_global_shape": (S, [H, P64]),
    "weft_layout_dtype": (S, [H, POINTER(DLDataType)]),
    "weft_layout_placements": (S, [H, POINTER(Placement_t)]),
    "weft_layout_split_sizes": (S, [H, c_int32, P64, c_int64, P64]),
    "weft_layout_equal": (S, [H, H, P32]),
    "weft_layout_describe": (S, [H] + TEXT),
    "weft_redistribute_plan_create": (S, [H, H, POINTER(PlanOptions_t), PH]),
    "weft_redistribute_plan_create_n": (S, [c_int32, PH, PH, POINTER(PlanOptions_t), PH]),
    "weft_plan_execute": (S, [H, PDL, PDL] + TAIL),
    "weft_plan_execute_n": (S, [H, c_int32, POINTER(PDL), POINTER(PDL)] + TAIL),
    "weft_plan_describe": (S, [H] + TEXT),
    "weft_plan_stats": (S, [H, POINTER(PlanStats_t)]),
    "weft_plan_destroy": (S, [H]),
    "weft_redistribute": (S, [H, PDL, H, PDL] + TAIL),
    "weft_halo_plan_create": (S, [H, POINTER(HaloDesc_t), POINTER(PlanOptions_t), PH]),
    "weft_halo_padded_shape": (S, [H, c_int32, P64, P64]),
    "weft_halo_exchange": (S, [H, PDL, PDL] + TAIL),
    "weft_halo_exchange_inplace": (S, [H, PDL] + TAIL),
    "weft_halo_accumulate": (S, [H, PDL, PDL, c_int32] + TAIL),
    "weft_halo_derive_windows": (S, [H, c_int32, POINTER(WindowOp_t), P64, c_int32, P64, P64]),
    "weft_rules_create": (S, [PH]),
    "weft_rules_destroy": (S, [H]),
    "weft_rules_list_ops": (S, [H] + TEXT),
    "weft_rules_propagate": (S, [H, c_char_p, c_int32, PH, POINTER(Attr_t), c_int32, PH]),
    "weft_rules_enumerate": (
        S,
        [H, c_char_p, c_int32, PH, POINTER(Attr_t), c_int32, PH, c_int32, P32],
    ),
    "weft_rules_register_einsum": (S, [H, c_char_p, c_char_p, c_void_p]),
    "weft_rules_load_string": (S, [H, c_char_p, c_char_p]),
    "weft_rules_load_plugin": (S, [H, c_char_p]),
    "weft_rules_attach": (S, [H, H]),
    "weft_strategy_num_inputs": (S, [H, P32]),
    "weft_strategy_num_outputs": (S, [H, P32]),
    "weft_strategy_input_layout": (S, [H, c_int32, PH]),
    "weft_strategy_output_layout": (S, [H, c_int32, PH]),
    "weft_strategy_cost": (S, [H, POINTER(c_double)]),
    "weft_strategy_input_halo": (S, [H, c_int32, POINTER(HaloDesc_t)]),
    "weft_strategy_describe": (S, [H] + TEXT),
    "weft_strategy_destroy": (S, [H]),
}

_NAMES = ("libweft.so.1", "libweft.so")
# Build trees searched from a source checkout, unsanitized first: an ASan libweft needs
# libasan preloaded into the Python process (README.md, "Sanitizer builds").
_BUILD_DIRS = ("build/rel", "build/default", "build", "build/asan")


def _candidates() -> List[Path]:
    """Where libweft may be, in the order README.md documents."""
    env = os.environ.get("WEFT_LIBRARY")
    if env:
        return [Path(env)]
    here = Path(__file__).resolve().parent
    found = [here / "lib" / n for n in _NAMES]
    for root in here.parents:
        if (root / "api" / "include" / "weft" / "weft.h").exists():
            found += [root / d / "lib" / n for d in _BUILD_DIRS for n in _NAMES]
            break
    return found


def _asan_linked(path: Path) -> bool:
    with open(path, "rb") as f:
        return b"libasan.so" in f.read()


def _asan_loaded() -> bool:
    try:
        with open("/proc/self/maps", "r", encoding="utf-8", errors="replace") as f:
            return "libasan" in f.read()
    except OSError:
        return False


def _open(path: Path) -> ctypes.CDLL:
    # Loading an ASan library into a process without the ASan runtime makes the runtime end
    # the process; refuse with an explanation instead.
    if _asan_linked(path) and not _asan_loaded():
        raise OSError(
            f"{path} is built with AddressSanitizer: run Python with "
            "LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0, "
            "or point WEFT_LIBRARY at an unsanitized build"
        )
    return ctypes.CDLL(str(path))


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        if path.exists():
            return _open(path)
        tried.append(str(path))
    system = ctypes.util.find_library("weft")
    if system:
        return ctypes.CDLL(system)
    raise OSError(
        "libweft not found; set WEFT_LIBRARY to its path (tried: " + ", ".join(tried) + ")"
    )


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    for name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise OSError(f"{lib._name} has no {name}: it is older than this binding; "
                          "rebuild it or point WEFT_LIBRARY at a current one") from None
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


_lib: Optional[ctypes.CDLL] = None


def lib() -> ctypes.CDLL:
    """The loaded libweft, loaded and declared on first use."""
    global _lib
    if _lib is None:
        _lib = _declare(_load())
    return _lib


def library_path() -> str:
    """The file the loaded libweft came from."""
    return str(lib()._name)
