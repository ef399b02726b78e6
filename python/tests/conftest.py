"""One Weft context per pytest session, from the launch environment (weftrun -n N).

Every rank runs the same tests in the same order, so the collective calls match up. Tests
that need more ranks than the world has are skipped on every rank alike.
"""

from typing import Iterator, Tuple

import numpy as np
import pytest

import weft


@pytest.fixture(scope="session")
def ctx() -> Iterator[weft.Context]:
    # A short deadline: a test that fails on one rank only must not hang the others for
    # the default 5 minutes.
    with weft.Context(timeout_ms=60000) as c:
        yield c


def global_values(index: Tuple[np.ndarray, ...], shape: Tuple[int, ...]) -> np.ndarray:
    """The formula every test's global tensor follows: 1 + the row-major linear index."""
    lin = np.zeros(index[0].shape if index else (), dtype=np.int64)
    for i, n in zip(index, shape):
        lin = lin * n + i
    return lin + 1


def block_of(layout: weft.Layout, rank=None) -> np.ndarray:
    """The formula's values on `rank`'s block of `layout`, in the layout's dtype."""
    shape, off = layout.local_shape(rank), layout.local_offset(rank)
    idx = tuple(np.indices(shape)[d] + off[d] for d in range(len(shape)))
    return global_values(idx, layout.shape).astype(layout.dtype)


def pytest_runtest_logreport(report):
    # Print a failure at once: when one rank fails, the others wait for it until the context's
    # deadline, and pytest's summary at the end may never come if the ranks are stopped.
    if report.failed:
        print(f"\n{report.nodeid} {report.when} failed:\n{report.longreprtext}", flush=True)
