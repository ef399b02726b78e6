"""Redistribute (weft/redistribute.h): one-shot, and plans made once and executed many times."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _dlpack, _lib
from .context import Work
from .errors import InvalidArgumentError, check, text
from .layout import Layout
from .mesh import _destroy

Array = Any  # a NumPy array or any object with __dlpack__ (CPU memory, or CUDA on nccl)
Stream = Any  # None (legacy default stream), a cudaStream_t as an int, or a torch.cuda.Stream


@dataclass(frozen=True)
class PlanStats:
    """What a plan does on its rank (weft_plan_stats)."""

    steps: int
    send_bytes: int
    recv_bytes: int
    extra_bytes: int


def call_options(timeout_ms: Optional[int]) -> Optional[_lib.CallOptions_t]:
    if timeout_ms is None:
        return None
    return _lib.CallOptions_t(ctypes.sizeof(_lib.CallOptions_t), 0, timeout_ms)


def plan_options(rank: Optional[int], extra_bytes_cap: Optional[int]) -> _lib.PlanOptions_t:
    return _lib.PlanOptions_t(ctypes.sizeof(_lib.PlanOptions_t), -1 if rank is None else rank, 0,
                              -1 if extra_bytes_cap is None else extra_bytes_cap)


def run(fn: Any, args: Tuple[Any, ...], keep: Any, result: Any, async_op: bool,
        timeout_ms: Optional[int], stream: Optional[int] = None) -> Any:
    """Calls a communicating C function with its (stream, opts, work) tail.

    Blocking: returns `result`. async_op: returns a Work holding `keep` (the buffers) until done.
    On CUDA buffers either way the work is enqueued on `stream` when the call returns (SPEC §6.2).
    """
    opts = call_options(timeout_ms)
    popts = None if opts is None else ctypes.byref(opts)
    cstream = None if stream is None else ctypes.c_void_p(stream)
    if not async_op:
        check(fn(*args, cstream, popts, None))
        return result
    work = ctypes.c_void_p()
    check(fn(*args, cstream, popts, ctypes.byref(work)))
    return Work(work.value, keep, result)


def in_view(x: Optional[Array], layout: Layout, name: str,
            stream: Optional[int] = None) -> Optional[_dlpack.View]:
    """The input buffer's view, checked against this rank's block (None off the mesh)."""
    if not layout.mesh.holds_self():
        return None  # cross-mesh: what a rank off the source mesh passes is ignored
    if x is None:
        raise InvalidArgumentError(-1, f"{name} is None on a rank of the layout's mesh")
    v = _dlpack.view(x, name, stream=stream)
    _dlpack.check_block(v, name, layout.local_shape(), layout._dl)
    return v


def out_view(out: Optional[Array], layout: Layout, name: str, like: Any = None,
             vlike: Optional[_dlpack.View] = None,
             stream: Optional[int] = None) -> Tuple[Any, Optional[_dlpack.View]]:
    """The output buffer and its view; (None, None) off the mesh. When `out` is None it is
    allocated where the input `like` (viewed as vlike) lives: NumPy, or CUDA memory."""
    if not layout.mesh.holds_self():
        return None, None
    if out is None:
        out = _dlpack.empty_like(like, vlike, layout.local_shape(), layout.dtype, name)
    v = _dlpack.view(out, name, writable=True, stream=stream)
    _dlpack.check_block(v, name, layout.local_shape(), layout._dl)
    return out, v


def fast_call(fn: Any, handle: int, pair: Tuple[Layout, Layout], x: Any, out: Any,
              dst_handle: Optional[int] = None) -> Any:
    """A blocking call on C-contiguous NumPy blocks of the right shapes, or None for the rest.

    The common case costs a few microseconds over the C call (bench/python/); anything else
    goes through the general path, which also words the errors.
    """
    src, dst = pair
    tin = src.fast_tensor(x, "i", False)
    if tin is None:
        return None
    if out is None:
        shape = dst._fast_shape()
        if shape is None:
            return None
        out = np.empty(shape, dst.dtype)
    tout = dst.fast_tensor(out, "o", True)
    if tout is None:
        return None
    if dst_handle is None:
        st = fn(handle, ctypes.byref(tin), ctypes.byref(tout), None, None, None)
    else:
        st = fn(handle, ctypes.byref(tin), dst_handle, ctypes.byref(tout), None, None, None)
    if st < 0:
        check(st)
    return out


def _ptr(v: Optional[_dlpack.View]) -> Any:
    return None if v is None else ctypes.byref(v.tensor)


class Plan:
    """A redistribute plan: computed once from (src, dst) on every rank, executed many times.

    Plan(src, dst) moves one tensor, over one mesh or between two meshes of a context (a
    cross-mesh plan: ranks outside the source mesh pass None as input, ranks outside the
    destination mesh get None back). Plan.batched([(src0, dst0), ...]) moves several tensors in
    one execution, fusing their collectives when their steps match.

    Args:
        rank: the rank to plan for (default: the context's; required on an abstract mesh, whose
            plans can be described and measured but not executed).
        extra_bytes_cap: bytes per rank a cheaper plan may receive beyond what the destination
            block lacks (None: WEFT_PLAN_EXTRA_BYTES_CAP, else 256 KiB; 0: never).
    """

    def __init__(self, src: Layout, dst: Layout, *, rank: Optional[int] = None,
                 extra_bytes_cap: Optional[int] = None) -> None:
        opts = plan_options(rank, extra_bytes_cap)
        handle = ctypes.c_void_p()
        check(_lib.lib().weft_redistribute_plan_create(src.handle, dst.handle, ctypes.byref(opts),
                                                       ctypes.byref(handle)))
        self._handle = handle.value
        self._exec = _lib.lib().weft_plan_execute
        self.pairs: List[Tuple[Layout, Layout]] = [(src, dst)]

    @classmethod
    def batched(cls, pairs: Sequence[Tuple[Layout, Layout]], *, rank: Optional[int] = None,
                extra_bytes_cap: Optional[int] = None) -> "Plan":
        """One plan for n redistributes on one mesh (weft_redistribute_plan_create_n)."""
        n = len(pairs)
        src = (ctypes.c_void_p * n)(*[s.handle for s, _ in pairs])
        dst = (ctypes.c_void_p * n)(*[d.handle for _, d in pairs])
        opts = plan_options(rank, extra_bytes_cap)
        handle = ctypes.c_void_p()
        check(_lib.lib().weft_redistribute_plan_create_n(n, src, dst, ctypes.byref(opts),
                                                         ctypes.byref(handle)))
        plan = cls.__new__(cls)
        plan._handle = handle.value
        plan._exec = _lib.lib().weft_plan_execute
        plan.pairs = list(pairs)
        return plan

    def __del__(self) -> None:
        _destroy("weft_plan_destroy", getattr(self, "_handle", None))

    @property
    def handle(self) -> int:
        return self._handle

    def __call__(self, x: Optional[Array], out: Optional[Array] = None, *,
                 async_op: bool = False, timeout_ms: Optional[int] = None,
                 stream: Stream = None) -> Any:
        return self.execute(x, out, async_op=async_op, timeout_ms=timeout_ms, stream=stream)

    def execute(self, x: Optional[Array], out: Optional[Array] = None, *, async_op: bool = False,
                timeout_ms: Optional[int] = None, stream: Stream = None) -> Any:
        """Moves this rank's block `x` of src into `out` (allocated when None) and returns it.

        Collective over the plan's ranks. async_op=True returns a Work whose wait() returns
        the output; `x` and `out` stay referenced until then. CUDA tensors (nccl backend) are
        read and written on `stream` (None: the legacy default stream); the call returns once
        the work is enqueued there, and `out` defaults to x.new_empty(...). The plan's device
        workspace is released on the stream of its last execution: destroy the plan before
        that stream.
        """
        if (not async_op and timeout_ms is None and stream is None and len(self.pairs) == 1):
            done = fast_call(self._exec, self._handle, self.pairs[0], x, out)
            if done is not None:
                return done
        if len(self.pairs) != 1:
            return self.execute_n([x], None if out is None else [out], async_op=async_op,
                                  timeout_ms=timeout_ms, stream=stream)
        src, dst = self.pairs[0]
        s = _dlpack.stream_handle(stream)
        vin = in_view(x, src, "x", s)
        out, vout = out_view(out, dst, "out", x, vin, s)
        return run(_lib.lib().weft_plan_execute, (self._handle, _ptr(vin), _ptr(vout)),
                   (vin, vout), out, async_op, timeout_ms, s)

    def execute_n(self, xs: Sequence[Optional[Array]], outs: Optional[Sequence[Any]] = None, *,
                  async_op: bool = False, timeout_ms: Optional[int] = None,
                  stream: Stream = None) -> Any:
        """Runs a batched plan: xs[i] is tensor i's block; returns the list of outputs."""
        n = len(self.pairs)
        if len(xs) != n or (outs is not None and len(outs) != n):
            raise InvalidArgumentError(-1, f"the plan moves {n} tensors; got {len(xs)} inputs")
        s = _dlpack.stream_handle(stream)
        vins, vouts, results = [], [], []
        for i, (src, dst) in enumerate(self.pairs):
            vins.append(in_view(xs[i], src, f"xs[{i}]", s))
            o, vo = out_view(None if outs is None else outs[i], dst, f"outs[{i}]", xs[i],
                             vins[-1], s)
            results.append(o)
            vouts.append(vo)
        cin, cout = _dlpack.views_array(vins), _dlpack.views_array(vouts)
        return run(_lib.lib().weft_plan_execute_n, (self._handle, n, cin, cout),
                   (vins, vouts, cin, cout), results, async_op, timeout_ms, s)

    def describe(self) -> str:
        """One line per step: collective, mesh dims, placements, bytes."""
        return text(lambda b, n, need: _lib.lib().weft_plan_describe(self._handle, b, n, need))

    def stats(self) -> PlanStats:
        s = _lib.PlanStats_t(ctypes.sizeof(_lib.PlanStats_t), 0, 0, 0, 0, 0)
        check(_lib.lib().weft_plan_stats(self._handle, ctypes.byref(s)))
        return PlanStats(s.steps, s.send_bytes, s.recv_bytes, s.extra_bytes)


def redistribute(x: Optional[Array], src: Layout, dst: Layout, out: Optional[Array] = None, *,
                 async_op: bool = False, timeout_ms: Optional[int] = None,
                 stream: Stream = None) -> Union[np.ndarray, Work, None]:
    """One-shot redistribute of this rank's block `x` from `src` to `dst` (plans are cached).

    Returns the output block (a new NumPy array when `out` is None, x.new_empty(...) for CUDA
    tensors), or a Work with async_op. CUDA tensors go on `stream` (Plan.execute).
    """
    if not async_op and timeout_ms is None and stream is None:
        done = fast_call(_lib.lib().weft_redistribute, src.handle, (src, dst), x, out, dst.handle)
        if done is not None:
            return done
    s = _dlpack.stream_handle(stream)
    vin = in_view(x, src, "x", s)
    out, vout = out_view(out, dst, "out", x, vin, s)
    return run(_lib.lib().weft_redistribute, (src.handle, _ptr(vin), dst.handle, _ptr(vout)),
               (vin, vout), out, async_op, timeout_ms, s)
