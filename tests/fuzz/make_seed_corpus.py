#!/usr/bin/env python3
"""Writes the seed corpus of layout_fuzz (tests/fuzz/corpus/layout/) in the byte format that
layout_fuzz.cpp decodes. Run once when the format changes; the files are committed.

    tests/fuzz/make_seed_corpus.py tests/fuzz/corpus/layout
"""
import hashlib
import os
import struct
import sys

# Indices into kDTypes in layout_fuzz.cpp.
F32, F64, F16, BF16, I8, I32, I64, U8, U64, C64, C128, BOOL, F8, OPAQUE8, I24 = range(15)
INT64_MAX = (1 << 63) - 1
EXTREMES = [INT64_MAX, INT64_MAX - 1, INT64_MAX // 2, INT64_MAX // 2 + 1]
SUM, AVG, MAX, MIN, PROD = range(5)


def extent(e):
    """Bytes that Bytes::Extent() decodes to e."""
    if 0 <= e < 32:
        return bytes([e])
    if 32 <= e < 1 << 14:
        return bytes([0x80 | e >> 8, e & 0xFF])
    if e in EXTREMES:
        return bytes([0xC0 | EXTREMES.index(e)])
    return bytes([0xF0]) + struct.pack(">q", e)


def rep():
    return 0


def shard(d, tensor_ndim):
    return next(b for b in range(0xF0) if b % 3 == 1 and (b >> 2) % (tensor_ndim + 1) == d)


def partial(op):
    return next(b for b in range(0xF0) if b % 3 == 2 and (b >> 2) % 5 == op)


def mesh(shape, ranks=None, world=0, world_byte=0, derive=0, mask=0, pick=0):
    """ranks: None, ('perm', base, swaps), ('stride', base, step) or ('raw', [-128..127])."""
    out = bytes([len(shape) - 1]) + bytes(e - 1 for e in shape)
    if ranks is None:
        out += bytes([0])
    elif ranks[0] == "perm":
        out += bytes([1, ranks[1]]) + bytes(ranks[2])
    elif ranks[0] == "stride":
        out += bytes([2, ranks[1], ranks[2] - 1])
    else:
        out += bytes([3, 0]) + bytes(r + 128 for r in ranks[1])
    out += bytes([world]) + (bytes([world_byte]) if world == 3 else b"")
    return out + bytes([derive, mask, pick])


def layout(shape, dtype, placements, splits=b"", explicit_mask=0, probes=(), count=0):
    out = bytes([len(shape)]) + b"".join(extent(e) for e in shape)
    out += bytes([dtype, count]) + bytes(placements) + bytes([explicit_mask]) + splits
    return out + bytes([len(probes)]) + b"".join(struct.pack(">q", p) for p in probes)


def split_raw(sizes, wrong_count=0):
    mode = 2 | ((0x80 | (0x40 if wrong_count > 0 else 0)) if wrong_count else 0)
    return bytes([mode]) + b"".join(extent(s) for s in sizes)


def split_sum(head):
    """Mode 1: the given leading sizes (< 256), the last piece takes the rest."""
    return bytes([1]) + bytes(head)


SEEDS = {
    "chunk_9_over_4": mesh([4]) + layout([9], F32, [shard(0, 1)]),
    "nested_5_on_2x2": mesh([2, 2]) + layout([5], F32, [shard(0, 1), shard(0, 1)]),
    "grid_6x7_on_2x3": mesh([2, 3]) + layout([6, 7], F64, [shard(0, 2), shard(1, 2)]),
    "permuted_ranks": mesh([2, 2], ranks=("perm", 0, [1, 0, 1]))
    + layout([4, 4], F16, [shard(1, 2), shard(0, 2)]),
    "strided_ranks_ragged": mesh([3], ranks=("stride", 4, 2))
    + layout([10], BF16, [shard(0, 1)], split_raw([5, 0, 5]), explicit_mask=1),
    "slice_of_2x4": mesh([2, 4], derive=1, mask=0b10, pick=5)
    + layout([8], I32, [shard(0, 1)]),
    "flatten_2x2x2": mesh([2, 2, 2], derive=2, mask=0, pick=1)
    + layout([8, 3], F32, [shard(0, 2), rep()]),
    "partial_sum_avg": mesh([2, 2]) + layout([3], F32, [partial(SUM), partial(AVG)]),
    "partial_max_bool": mesh([3]) + layout([4], BOOL, [partial(MAX)]),
    "invalid_avg_int": mesh([2]) + layout([4], I32, [partial(AVG)]),
    "invalid_shard_dim": mesh([2]) + layout([4], F32, [shard(1, 1)]),
    "invalid_split_sum": mesh([2])
    + layout([6], F32, [shard(0, 1)], split_raw([2, 3]), explicit_mask=1),
    "huge_extent_int8": mesh([2]) + layout([INT64_MAX], I8, [shard(0, 1)]),
    "huge_extent_nested": mesh([3, 2])
    + layout([INT64_MAX // 2 + 1], U8, [shard(0, 1), shard(0, 1)]),
    "scalar": mesh([2, 2]) + layout([], F32, [rep(), rep()]),
    "zero_extent": mesh([2, 2]) + layout([0, 5], U64, [shard(0, 2), shard(1, 2)]),
    "world_bound_rejects": mesh([2, 2], ranks=("perm", 3, [0, 0, 0]), world=3, world_byte=5)
    + layout([4], F32, [rep(), rep()]),
    "nested_ragged": mesh([2, 3])
    + layout([12], F64, [shard(0, 1), shard(0, 1)], split_raw([1, 2, 3, 0, 4, 2]),
             explicit_mask=1),
    "ragged_equal_to_chunk": mesh([4])
    + layout([9, 2], F32, [shard(0, 2)], bytes([0, 0]), explicit_mask=0b11),
    "ragged_sum_mode": mesh([2, 2])
    + layout([20, 3], C64, [shard(0, 2), shard(1, 2)], split_sum([7]) + split_sum([0]),
             explicit_mask=0b11),
    "ragged_wrong_count": mesh([3])
    + layout([6], F32, [shard(0, 1)], split_raw([1, 2, 3, 0], wrong_count=1),
             explicit_mask=1),
    "four_dim_mesh": mesh([2, 2, 2, 2])
    + layout([7, 5, 3], F32, [shard(0, 3), shard(1, 3), shard(2, 3), shard(0, 3)]),
    "probes_outside": mesh([2, 3], ranks=("stride", 10, 3))
    + layout([6, 6], I64, [shard(1, 2), rep()], probes=(9, 1 << 40, -5)),
    "invalid_max_complex": mesh([2]) + layout([4], C128, [partial(MAX)]),
    "movable_not_reducible": mesh([2, 2]) + layout([4, 4], F8, [shard(0, 2), rep()]),
    "opaque_partial_rejects": mesh([2]) + layout([4], OPAQUE8, [partial(SUM)]),
    "large_extents": mesh([8, 8]) + layout([16383, 16000], I24, [shard(1, 2), shard(0, 2)]),
    "placement_count_mismatch": mesh([2, 2]) + layout([4], F32, [rep()], count=0xFE),
    "raw_ranks_duplicate": mesh([2, 2], ranks=("raw", [0, 1, 1, 3])) + layout([4], F32, [rep()]),
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "corpus", "layout")
    os.makedirs(out_dir, exist_ok=True)
    for name, data in SEEDS.items():
        digest = hashlib.sha1(data).hexdigest()[:8]
        with open(os.path.join(out_dir, f"{name}-{digest}"), "wb") as f:
            f.write(data)
    print(f"wrote {len(SEEDS)} seeds to {out_dir}")


if __name__ == "__main__":
    main()
