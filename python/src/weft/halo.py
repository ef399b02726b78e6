"""Halo plans (weft/halo.h) and operator windows (weft/halo_windows.h)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from . import _dlpack, _lib
from .errors import InvalidArgumentError, check
from .layout import Layout
from .plan import Array, Plan, plan_options, run

BOUNDARIES = ("none", "constant", "reflect", "symmetric", "replicate", "periodic")
STENCILS = ("box", "star")
TRANSPORTS = ("auto", "phases", "neighbor")
WINDOW_OPS = ("conv", "pool", "conv_transpose", "interp_nearest", "interp_linear",
              "neighborhood_attention", "interp_linear_aligned")


def _index(name: str, value: str, choices: Sequence[str]) -> int:
    if value not in choices:
        raise InvalidArgumentError(-1, f"{name} {value!r} is not one of {tuple(choices)}")
    return list(choices).index(value)


@dataclass
class HaloDim:
    """One windowed tensor dim (weft_halo_dim_t).

    Uniform mode: `lo`/`hi` rows from the neighbours below/above, `pad_lo`/`pad_hi` rows of
    physical boundary filled by `boundary` (or boundary_lo/boundary_hi per side). Explicit mode:
    `windows`, begin and end per rank at each row-major mesh position (derive_windows gives them).
    """

    dim: int
    lo: int = 0
    hi: int = 0
    pad_lo: int = 0
    pad_hi: int = 0
    boundary: str = "none"
    boundary_lo: Optional[str] = None
    boundary_hi: Optional[str] = None
    windows: Optional[Sequence[int]] = None

    def to_c(self) -> Tuple[_lib.HaloDim_t, Any]:
        lo_rule = _index("boundary", self.boundary_lo or self.boundary, BOUNDARIES)
        hi_rule = _index("boundary", self.boundary_hi or self.boundary, BOUNDARIES)
        win = None if self.windows is None else (ctypes.c_int64 * len(self.windows))(*self.windows)
        d = _lib.HaloDim_t(self.dim, lo_rule, hi_rule, 0, self.lo, self.hi, self.pad_lo,
                           self.pad_hi, None if win is None else ctypes.cast(win, _lib.P64))
        return d, win


class HaloPlan(Plan):
    """A halo plan over `layout`: exchange fills every rank's padded (overlapping) block.

    Args:
        dims: the windowed tensor dims (HaloDim each).
        stencil: "box" (corners included) or "star".
        transport: "auto", "phases" or "neighbor".
        deterministic: accumulate adds contributions in one fixed order (bitwise reproducible).
        constant: the value of the "constant" boundary rule.
        rank: plan for another rank (sizing; default the context's).
    describe() and stats() work as for redistribute plans.
    """

    def __init__(self, layout: Layout, dims: Sequence[HaloDim], *, stencil: str = "box",
                 transport: str = "auto", deterministic: bool = False, constant: float = 0.0,
                 rank: Optional[int] = None) -> None:
        cdims = [d.to_c() for d in dims]
        arr = (_lib.HaloDim_t * len(cdims))(*[c for c, _ in cdims])
        desc = _lib.HaloDesc_t(ctypes.sizeof(_lib.HaloDesc_t), len(cdims), arr,
                               _index("stencil", stencil, STENCILS),
                               _index("transport", transport, TRANSPORTS),
                               int(deterministic), 0, float(constant))
        opts = plan_options(rank, None)
        handle = ctypes.c_void_p()
        check(_lib.lib().weft_halo_plan_create(layout.handle, ctypes.byref(desc),
                                               ctypes.byref(opts), ctypes.byref(handle)))
        self._handle = handle.value
        self.layout = layout
        self.pairs = []

    def padded_shape(self, rank: Optional[int] = None) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """(shape, origin) of `rank`'s padded block: padded[i] holds X[origin + i]."""
        n = max(self.layout.ndim, 1)
        shape, origin = (ctypes.c_int64 * n)(), (ctypes.c_int64 * n)()
        check(_lib.lib().weft_halo_padded_shape(self._handle, -1 if rank is None else rank,
                                                shape, origin))
        nd = self.layout.ndim
        return tuple(shape[:nd]), tuple(origin[:nd])

    def _padded(self, padded: Optional[Array], name: str, like: Any = None,
                vlike: Optional[_dlpack.View] = None,
                stream: Optional[int] = None) -> Tuple[Any, _dlpack.View]:
        shape = self.padded_shape()[0]
        if padded is None:
            padded = _dlpack.empty_like(like, vlike, shape, self.layout.dtype, name)
        v = _dlpack.view(padded, name, writable=True, stream=stream)
        _dlpack.check_block(v, name, shape, self.layout._dl)
        return padded, v

    def _local(self, x: Array, name: str, writable: bool,
               stream: Optional[int] = None) -> _dlpack.View:
        v = _dlpack.view(x, name, writable=writable, stream=stream)
        _dlpack.check_block(v, name, self.layout.local_shape(), self.layout._dl)
        return v

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        raise InvalidArgumentError(-1, "a halo plan runs through exchange() or accumulate()")

    def exchange(self, x: Array, padded: Optional[Array] = None, *, async_op: bool = False,
                 timeout_ms: Optional[int] = None, stream: Any = None) -> Any:
        """Fills `padded` (allocated when None) from this rank's block `x` and the neighbours'.

        CUDA tensors (nccl backend) go on `stream` as in Plan.execute."""
        s = _dlpack.stream_handle(stream)
        vin = self._local(x, "x", False, s)
        padded, vout = self._padded(padded, "padded", x, vin, s)
        return run(_lib.lib().weft_halo_exchange,
                   (self._handle, ctypes.byref(vin.tensor), ctypes.byref(vout.tensor)),
                   (vin, vout), padded, async_op, timeout_ms, s)

    def exchange_inplace(self, padded: Array, *, async_op: bool = False,
                         timeout_ms: Optional[int] = None, stream: Any = None) -> Any:
        """Fills only the ghost cells of `padded`, whose owned cells hold the local data."""
        s = _dlpack.stream_handle(stream)
        padded, v = self._padded(padded, "padded", stream=s)
        return run(_lib.lib().weft_halo_exchange_inplace, (self._handle, ctypes.byref(v.tensor)),
                   (v,), padded, async_op, timeout_ms, s)

    def accumulate(self, padded_grad: Array, local_grad: Optional[Array] = None, *,
                   add: bool = False, async_op: bool = False,
                   timeout_ms: Optional[int] = None, stream: Any = None) -> Any:
        """The adjoint of exchange: every padded cell adds into the element it was read from."""
        s = _dlpack.stream_handle(stream)
        _, vin = self._padded(padded_grad, "padded_grad", stream=s)
        if local_grad is None:
            local_grad = _dlpack.empty_like(padded_grad, vin, self.layout.local_shape(),
                                            self.layout.dtype, "local_grad")
        vout = self._local(local_grad, "local_grad", True, s)
        return run(_lib.lib().weft_halo_accumulate,
                   (self._handle, ctypes.byref(vin.tensor), ctypes.byref(vout.tensor), int(add)),
                   (vin, vout), local_grad, async_op, timeout_ms, s)


@dataclass
class WindowOp:
    """A windowed operator (weft_window_op_t): kind is one of WINDOW_OPS."""

    kind: str = "conv"
    kernel: int = 1
    stride: int = 1
    dilation: int = 1
    pad_lo: int = 0
    pad_hi: int = 0
    out_extent: int = 0


@dataclass(frozen=True)
class Windows:
    """derive_windows's answer: input windows per mesh position, output piece sizes, N_out."""

    windows: List[Tuple[int, int]]
    out_sizes: List[int]
    out_extent: int


def derive_windows(layout: Layout, dim: int, op: WindowOp) -> Windows:
    """The input windows operator `op` reads on tensor dim `dim` of `layout`, per rank.

    windows plug into HaloDim(windows=...) (flattened), out_sizes into Shard(dim, split=...).
    """
    cop = _lib.WindowOp_t(ctypes.sizeof(_lib.WindowOp_t), _index("kind", op.kind, WINDOW_OPS),
                          op.kernel, op.stride, op.dilation, op.pad_lo, op.pad_hi, op.out_extent)
    nranks = layout.mesh.size()
    npieces = len(layout.split_sizes(dim)) if 0 <= dim < layout.ndim else 1
    win = (ctypes.c_int64 * (2 * nranks))()
    sizes = (ctypes.c_int64 * npieces)()
    extent = ctypes.c_int64()
    check(_lib.lib().weft_halo_derive_windows(layout.handle, dim, ctypes.byref(cop), win, npieces,
                                              sizes, ctypes.byref(extent)))
    pairs = [(win[2 * i], win[2 * i + 1]) for i in range(nranks)]
    return Windows(pairs, list(sizes), extent.value)
