"""Layout (weft/layout.h): mesh + global shape + dtype + placements (+ ragged splits)."""

from __future__ import annotations

import ctypes
import threading
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _lib
from . import _dlpack
from ._dlpack import DTypeLike, to_dl_dtype, to_np_dtype
from .errors import InvalidArgumentError, check, text
from .mesh import DeviceMesh, _destroy
from .placement import Partial, Placement, Shard, from_c, to_c


def _splits(ndim: int, placements: Sequence[Placement]) -> Tuple[Any, Any, Any]:
    """The (split_sizes, split_counts) arrays of weft_layout_create_ragged, or Nones."""
    given = {}
    for p in placements:
        if isinstance(p, Shard) and p.split is not None and p.dim not in given:
            if not 0 <= p.dim < ndim:
                return None, None, None  # let the C call name the bad dim
            given[p.dim] = p.split
    if not given:
        return None, None, None
    rows = [(ctypes.c_int64 * len(given[d]))(*given[d]) if d in given else None
            for d in range(ndim)]
    sizes = (ctypes.POINTER(ctypes.c_int64) * ndim)(
        *[ctypes.cast(r, ctypes.POINTER(ctypes.c_int64)) if r is not None else None
          for r in rows])
    counts = (ctypes.c_int64 * ndim)(*[len(given[d]) if d in given else 0 for d in range(ndim)])
    return sizes, counts, rows


class Layout:
    """How a global tensor lies on a mesh: Layout(mesh, (8, 6), np.float32, [Shard(0)]).

    One placement per mesh dim. Shard(d) splits tensor dim d as torch.chunk does, or by
    Shard(d, split=[...]) sizes; several mesh dims sharding one tensor dim nest left to right.
    Layouts never communicate; local_shape/local_offset answer for any rank. `placements`
    reads back from libweft, so a ragged Shard shows as Shard(d): split_sizes(d) has the pieces.
    """

    def __init__(self, mesh: DeviceMesh, shape: Sequence[int], dtype: DTypeLike,
                 placements: Sequence[Placement]) -> None:
        nd = len(shape)
        c_shape = (ctypes.c_int64 * nd)(*shape) if nd else None
        if len(placements) != mesh.ndim:
            raise InvalidArgumentError(
                -1, f"{len(placements)} placements for a {mesh.ndim}-dim mesh: give one per "
                "mesh dim")
        c_pl = (_lib.Placement_t * len(placements))(*[to_c(p) for p in placements])
        sizes, counts, _rows = _splits(nd, placements)
        handle = ctypes.c_void_p()
        check(_lib.lib().weft_layout_create_ragged(mesh.handle, nd, c_shape, to_dl_dtype(dtype),
                                                   c_pl, sizes, counts, ctypes.byref(handle)))
        self._init(handle.value, mesh)

    @classmethod
    def _wrap(cls, handle: int, mesh: DeviceMesh) -> "Layout":
        layout = cls.__new__(cls)
        layout._init(handle, mesh)
        return layout

    def _init(self, handle: int, mesh: DeviceMesh) -> None:
        self._handle = handle
        self.mesh = mesh
        lib = _lib.lib()
        nd = ctypes.c_int32()
        check(lib.weft_layout_ndim(handle, ctypes.byref(nd)))
        shape = (ctypes.c_int64 * max(nd.value, 1))()
        check(lib.weft_layout_global_shape(handle, shape))
        self.shape: Tuple[int, ...] = tuple(shape[: nd.value])
        dl = _lib.DLDataType()
        check(lib.weft_layout_dtype(handle, ctypes.byref(dl)))
        self._dl = dl
        self.dtype: np.dtype = to_np_dtype(dl)
        pl = (_lib.Placement_t * mesh.ndim)()
        check(lib.weft_layout_placements(handle, pl))
        self.placements: Tuple[Placement, ...] = tuple(from_c(p) for p in pl)
        self._local_cache: dict = {}
        self._fast: Optional[Tuple[Tuple[int, ...], Any]] = None
        self._tls = threading.local()

    def __del__(self) -> None:
        _destroy("weft_layout_destroy", getattr(self, "_handle", None))

    @property
    def handle(self) -> int:
        return self._handle

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _block(self, rank: Optional[int]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        r = self.mesh._rank(rank)
        hit = self._local_cache.get(r)
        if hit is None:
            n = max(self.ndim, 1)
            shape, offset = (ctypes.c_int64 * n)(), (ctypes.c_int64 * n)()
            check(_lib.lib().weft_layout_local_shape(self._handle, r, shape, offset))
            hit = (tuple(shape[: self.ndim]), tuple(offset[: self.ndim]))
            self._local_cache[r] = hit
        return hit

    def local_shape(self, rank: Optional[int] = None) -> Tuple[int, ...]:
        """The shape of `rank`'s block (default: this process's); zeros off the mesh."""
        return self._block(rank)[0]

    def local_offset(self, rank: Optional[int] = None) -> Tuple[int, ...]:
        """The global index of the first element of `rank`'s block."""
        return self._block(rank)[1]

    def local_slices(self, rank: Optional[int] = None) -> Tuple[slice, ...]:
        """The global slices `rank`'s block covers: global_array[layout.local_slices()]."""
        shape, off = self._block(rank)
        return tuple(slice(o, o + s) for o, s in zip(off, shape))

    def _fast_shape(self) -> Optional[Tuple[int, ...]]:
        """This rank's block shape when the layout is on a context's mesh holding it, else None."""
        if self._fast is None:
            here = self.mesh.context is not None and self.mesh.holds_self()
            shape = self.local_shape() if here else None
            c_shape = None if shape is None else (ctypes.c_int64 * len(shape))(*shape)
            self._fast = (shape, c_shape)
        return self._fast[0]

    def fast_tensor(self, arr: Any, role: str, writable: bool) -> Optional[_lib.DLTensor]:
        """The hot path's DLTensor over `arr`, or None when the general path must judge it.

        Taken for a C-contiguous NumPy array with exactly this rank's block shape and the
        layout's dtype: the descriptor is one per thread and role ("in"/"out"), reused, with
        only its data pointer set (Weft copies descriptors during the call, SPEC §6.3).
        """
        shape = self._fast_shape()
        if (shape is None or type(arr) is not np.ndarray or arr.shape != shape
                or arr.dtype != self.dtype or not arr.flags.c_contiguous
                or (writable and not arr.flags.writeable)):
            return None
        t = getattr(self._tls, role, None)
        if t is None:
            t = _dlpack.cpu_tensor(self._fast[1], self._dl)
            setattr(self._tls, role, t)
        t.data = _dlpack.data_pointer(arr)
        return t

    def split_sizes(self, dim: int) -> List[int]:
        """The piece sizes of tensor dim `dim` (one piece when no mesh dim shards it)."""
        count = ctypes.c_int64()
        lib = _lib.lib()
        lib.weft_layout_split_sizes(self._handle, dim, None, 0, ctypes.byref(count))
        out = (ctypes.c_int64 * max(count.value, 1))()
        check(lib.weft_layout_split_sizes(self._handle, dim, out, len(out), ctypes.byref(count)))
        return list(out[: count.value])

    def empty(self, rank: Optional[int] = None) -> np.ndarray:
        """An uninitialized NumPy array of `rank`'s block."""
        return np.empty(self.local_shape(rank), dtype=self.dtype)

    def distribute(self, global_array: np.ndarray, rank: Optional[int] = None) -> np.ndarray:
        """`rank`'s block of a global array every rank holds (a copy).

        Partial mesh dims get the whole value on coordinate 0 and the op's identity elsewhere
        for sum and prod (the reduction then gives the array back exactly); avg, max and min
        get the value on every coordinate.
        """
        block = np.array(global_array[self.local_slices(rank)], dtype=self.dtype)
        coord = self.mesh.coordinate(rank) if self.mesh.contains(rank) else None
        for d, p in enumerate(self.placements):
            if isinstance(p, Partial) and coord is not None and coord[d] != 0:
                if p.reduce_op == "sum":
                    block[...] = 0
                elif p.reduce_op == "prod":
                    block[...] = 1
        return block

    def describe(self) -> str:
        return text(lambda b, n, need: _lib.lib().weft_layout_describe(self._handle, b, n, need))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        out = ctypes.c_int32()
        check(_lib.lib().weft_layout_equal(self._handle, other._handle, ctypes.byref(out)))
        return bool(out.value)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Layout(shape={self.shape}, dtype={self.dtype}, "
                f"placements={list(self.placements)}, mesh={self.mesh.shape})")
