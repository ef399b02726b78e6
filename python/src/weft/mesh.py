"""DeviceMesh (weft/mesh.h): an N-D array of world ranks, with optional dim names."""

from __future__ import annotations

import ctypes
from typing import List, Optional, Sequence, Tuple, Union

from . import _lib
from .context import Context
from .errors import InvalidArgumentError, check, text

DimRef = Union[int, str]


def _destroy(fn_name: str, handle: Optional[int]) -> None:
    if handle is None:
        return
    try:
        getattr(_lib.lib(), fn_name)(handle)
    except Exception:  # interpreter shutdown: the library may be gone already
        pass


class DeviceMesh:
    """A mesh of ranks, as torch's DeviceMesh: DeviceMesh(ctx, (2, 2), ("dp", "tp")).

    Args:
        context: the Context whose world ranks the mesh holds, or None for an abstract mesh
            (planning and sizing only; any size, no processes behind it).
        shape: the extents, 1 to 16 dims.
        dim_names: one name per dim (None or "" = unnamed), distinct.
        ranks: the world ranks in row-major order; None: 0..n-1.
    Meshes never communicate; sub-meshes come from mesh["tp"] or mesh[("dp", "tp")].
    """

    def __init__(self, context: Optional[Context], shape: Sequence[int],
                 dim_names: Optional[Sequence[Optional[str]]] = None,
                 ranks: Optional[Sequence[int]] = None) -> None:
        nd = len(shape)
        c_shape = (ctypes.c_int64 * nd)(*shape)
        c_ranks = None if ranks is None else (ctypes.c_int32 * len(ranks))(*ranks)
        opts = _lib.MeshOptions_t(ctypes.sizeof(_lib.MeshOptions_t), 0, None)
        if dim_names is not None:
            if len(dim_names) != nd:
                raise InvalidArgumentError(
                    -1, f"dim_names has {len(dim_names)} names for a {nd}-dim mesh")
            opts.dim_names = (ctypes.c_char_p * nd)(*[(n or "").encode() for n in dim_names])
        handle = ctypes.c_void_p()
        ctx = None if context is None else context.handle
        check(_lib.lib().weft_mesh_create_ex(ctx, nd, c_shape, c_ranks, ctypes.byref(opts),
                                             ctypes.byref(handle)))
        self._init(handle.value, context)

    @classmethod
    def _wrap(cls, handle: int, context: Optional[Context]) -> "DeviceMesh":
        mesh = cls.__new__(cls)
        mesh._init(handle, context)
        return mesh

    def _init(self, handle: int, context: Optional[Context]) -> None:
        self._handle = handle
        self.context = context
        lib = _lib.lib()
        nd = ctypes.c_int32()
        check(lib.weft_mesh_ndim(handle, ctypes.byref(nd)))
        shape = (ctypes.c_int64 * nd.value)()
        check(lib.weft_mesh_shape(handle, shape))
        self.shape: Tuple[int, ...] = tuple(shape)
        self.dim_names: Tuple[str, ...] = tuple(
            text(lambda b, n, need, d=d: lib.weft_mesh_dim_name(handle, d, b, n, need))
            for d in range(nd.value))

    def __del__(self) -> None:
        _destroy("weft_mesh_destroy", getattr(self, "_handle", None))

    @property
    def handle(self) -> int:
        return self._handle

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def size(self, dim: Optional[DimRef] = None) -> int:
        """Number of ranks, or the extent of one dim."""
        if dim is not None:
            return self.shape[self.dim_index(dim)]
        n = 1
        for e in self.shape:
            n *= e
        return n

    def dim_index(self, dim: DimRef) -> int:
        """The index of a dim given by index or name."""
        if isinstance(dim, int):
            return dim
        out = ctypes.c_int32()
        check(_lib.lib().weft_mesh_dim_index(self._handle, dim.encode(), ctypes.byref(out)))
        return out.value

    def _rank(self, rank: Optional[int]) -> int:
        if rank is not None:
            return rank
        if self.context is None:
            raise InvalidArgumentError(-1, "an abstract mesh needs an explicit rank")
        return self.context.rank

    def contains(self, rank: Optional[int] = None) -> bool:
        out = ctypes.c_int32()
        check(_lib.lib().weft_mesh_contains(self._handle, self._rank(rank), ctypes.byref(out)))
        return bool(out.value)

    def holds_self(self) -> bool:
        """Whether this process's rank is in the mesh (cached: the hot path asks every call)."""
        here = getattr(self, "_holds_self", None)
        if here is None:
            here = self._holds_self = self.contains()
        return here

    def coordinate(self, rank: Optional[int] = None) -> Tuple[int, ...]:
        """The mesh coordinate of `rank` (default: this process's rank)."""
        out = (ctypes.c_int64 * self.ndim)()
        check(_lib.lib().weft_mesh_coordinate(self._handle, self._rank(rank), out))
        return tuple(out)

    get_coordinate = coordinate  # torch's name

    def rank_at(self, coord: Sequence[int]) -> int:
        out = ctypes.c_int32()
        c = (ctypes.c_int64 * len(coord))(*coord)
        check(_lib.lib().weft_mesh_rank_at(self._handle, c, ctypes.byref(out)))
        return out.value

    def group(self, dim: DimRef, rank: Optional[int] = None) -> List[int]:
        """The world ranks of mesh dim `dim`'s group through `rank`, in coordinate order."""
        d = self.dim_index(dim)
        out = (ctypes.c_int32 * self.shape[d])()
        check(_lib.lib().weft_mesh_group(self._handle, d, self._rank(rank), out, len(out)))
        return list(out)

    def slice(self, dims: Sequence[DimRef], rank: Optional[int] = None) -> "DeviceMesh":
        """The sub-mesh over `dims` that holds `rank` (dims kept in mesh order)."""
        out = ctypes.c_void_p()
        r = self._rank(rank)
        if all(isinstance(d, str) for d in dims):
            names = (ctypes.c_char_p * len(dims))(*[str(d).encode() for d in dims])
            check(_lib.lib().weft_mesh_slice_by_names(self._handle, len(dims), names, r,
                                                      ctypes.byref(out)))
        else:
            idx = sorted(self.dim_index(d) for d in dims)
            c = (ctypes.c_int32 * len(idx))(*idx)
            check(_lib.lib().weft_mesh_slice(self._handle, len(idx), c, r, ctypes.byref(out)))
        return DeviceMesh._wrap(out.value, self.context)

    def __getitem__(self, dims: Union[DimRef, Tuple[DimRef, ...]]) -> "DeviceMesh":
        return self.slice(dims if isinstance(dims, tuple) else (dims,))

    def flatten(self, first: int = 0, count: Optional[int] = None,
                name: Optional[str] = None) -> "DeviceMesh":
        """Merges `count` consecutive dims from `first` (default: all) into one named `name`."""
        n = self.ndim - first if count is None else count
        out = ctypes.c_void_p()
        check(_lib.lib().weft_mesh_flatten(self._handle, first, n,
                                           None if name is None else name.encode(),
                                           ctypes.byref(out)))
        return DeviceMesh._wrap(out.value, self.context)

    def describe(self) -> str:
        return text(lambda b, n, need: _lib.lib().weft_mesh_describe(self._handle, b, n, need))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DeviceMesh):
            return NotImplemented
        out = ctypes.c_int32()
        check(_lib.lib().weft_mesh_equal(self._handle, other._handle, ctypes.byref(out)))
        return bool(out.value)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DeviceMesh({self.describe()!r})"
