"""Placements (weft/types.h, SPEC §2.2) under DTensor's names: Shard, Replicate, Partial."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple, Union

from ._lib import Placement_t
from .errors import InvalidArgumentError

REPLICATE, SHARD, PARTIAL = 0, 1, 2
REDUCE_OPS = ("sum", "avg", "max", "min", "prod")


@dataclass(frozen=True)
class Shard:
    """Tensor dim `dim` split over the mesh dim: as torch.chunk, or by explicit `split` sizes.

    `split` (ragged) gives the piece sizes of the tensor dim, indexed by the row-major
    combination of the coordinates of every mesh dim that shards it; mesh dims sharding one
    tensor dim must then agree on the split (the first one given is used).
    """

    dim: int
    split: Optional[Tuple[int, ...]] = None

    def __init__(self, dim: int, split: Optional[Tuple[int, ...]] = None) -> None:
        object.__setattr__(self, "dim", int(dim))
        object.__setattr__(self, "split", None if split is None else tuple(int(s) for s in split))

    def __repr__(self) -> str:
        if self.split is None:
            return f"Shard({self.dim})"
        return f"Shard({self.dim}, split={list(self.split)})"


@dataclass(frozen=True)
class Replicate:
    """Every rank of the mesh dim holds the whole tensor dim."""

    def __repr__(self) -> str:
        return "Replicate()"


@dataclass(frozen=True)
class Partial:
    """Every rank holds a partial value; the tensor is their `reduce_op` reduction."""

    reduce_op: str = "sum"

    def __post_init__(self) -> None:
        if self.reduce_op not in REDUCE_OPS:
            raise InvalidArgumentError(
                -1, f"Partial reduce_op {self.reduce_op!r} is not one of {REDUCE_OPS}")

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op!r})"


Placement = Union[Shard, Replicate, Partial]


def to_c(p: Placement) -> Placement_t:
    if isinstance(p, Shard):
        return Placement_t(SHARD, p.dim, 0, 0)
    if isinstance(p, Replicate):
        return Placement_t(REPLICATE, 0, 0, 0)
    if isinstance(p, Partial):
        return Placement_t(PARTIAL, 0, REDUCE_OPS.index(p.reduce_op), 0)
    raise InvalidArgumentError(-1, f"{p!r} is not a placement (Shard, Replicate, Partial)")


def from_c(p: Placement_t) -> Placement:
    if p.kind == SHARD:
        return Shard(p.dim)
    if p.kind == PARTIAL:
        return Partial(REDUCE_OPS[p.reduce_op])
    return Replicate()
