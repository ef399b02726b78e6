"""Weft for Python: device meshes, DTensor-style placements and layouts, redistribute and halo
plans over libweft's C ABI (ctypes, zero-copy NumPy/DLPack buffers).

    import numpy as np, weft
    with weft.Context() as ctx:                       # from weftrun/torchrun/mpirun/srun
        mesh = weft.DeviceMesh(ctx, (ctx.world_size,), ("x",))
        src = weft.Layout(mesh, (8, 6), np.float32, [weft.Shard(0)])
        dst = weft.Layout(mesh, (8, 6), np.float32, [weft.Replicate()])
        full = weft.redistribute(src.empty(), src, dst)
"""

from ._lib import library_path
from .context import Context, Work
from .errors import (AbortedError, BackendError, InternalError, InvalidArgumentError,
                     InvalidUsageError, NotAvailableError, PeerFailureError, PluginError,
                     UnsupportedError, VersionMismatchError, WeftError, WeftMemoryError,
                     WeftSystemError, WeftTimeoutError)
from .halo import HaloDim, HaloPlan, WindowOp, Windows, derive_windows
from .layout import Layout
from .mesh import DeviceMesh
from .placement import Partial, Placement, Replicate, Shard
from .plan import Plan, PlanStats, redistribute
from .rules import Rules, Strategy, propagate


def abi_version() -> int:
    """(major << 16) | minor of the loaded libweft."""
    from . import _lib

    return int(_lib.lib().weft_abi_version())


def version() -> str:
    """libweft's version string."""
    from . import _lib

    return _lib.lib().weft_version_string().decode()


__version__ = "1.0.0"

__all__ = [
    "AbortedError", "BackendError", "Context", "DeviceMesh", "HaloDim", "HaloPlan",
    "InternalError", "InvalidArgumentError", "InvalidUsageError", "Layout", "NotAvailableError",
    "Partial", "PeerFailureError", "Placement", "Plan", "PlanStats", "PluginError", "Replicate",
    "Rules", "Shard", "Strategy", "UnsupportedError", "VersionMismatchError", "WeftError",
    "WeftMemoryError", "WeftSystemError", "WeftTimeoutError", "WindowOp", "Windows", "Work",
    "abi_version", "derive_windows", "library_path", "propagate", "redistribute", "version",
]
