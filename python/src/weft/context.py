"""Context (weft/context.h) and Work (weft/work.h)."""

from __future__ import annotations

import atexit
import ctypes
import weakref
from typing import Any, Optional, Tuple

from . import _lib
from .errors import IN_PROGRESS, InvalidArgumentError, check, text

_open_contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()


class Context:
    """This process's membership in a world of ranks (weft_context_create).

    With no arguments the world comes from the launch environment, first match winning:
    weftrun (WEFT_RANK, WEFT_WORLD_SIZE, WEFT_STORE), torchrun (RANK, WORLD_SIZE,
    MASTER_ADDR, MASTER_PORT), Open MPI / PMI, Slurm, else a single process. Creating and
    closing are collective over the world. Use it as a context manager, or call close();
    contexts still open at interpreter exit are closed then (on every rank alike).

    Args:
        backend: "gloo", "ucx", "self" or a plugin path; None: WEFT_BACKEND, else gloo for
            several ranks and self for one.
        rank, world_size, store_host, store_port: explicit values instead of the environment.
        timeout_ms: default deadline of every operation (0: WEFT_TIMEOUT_MS, else 5 minutes).
        connect_timeout_ms: deadline of creation (0: WEFT_CONNECT_TIMEOUT_MS, else 60 s).
    """

    def __init__(self, backend: Optional[str] = None, *, rank: Optional[int] = None,
                 world_size: Optional[int] = None, store_host: Optional[str] = None,
                 store_port: Optional[int] = None, timeout_ms: int = 0,
                 connect_timeout_ms: int = 0) -> None:
        opts = _lib.ContextOptions_t(
            ctypes.sizeof(_lib.ContextOptions_t),
            -1 if rank is None else rank,
            -1 if world_size is None else world_size,
            -1 if store_port is None else store_port,
            None if store_host is None else store_host.encode(),
            None if backend is None else backend.encode(),
            timeout_ms,
            connect_timeout_ms,
        )
        handle = ctypes.c_void_p()
        check(_lib.lib().weft_context_create(ctypes.byref(opts), ctypes.byref(handle)))
        self._handle: Optional[int] = handle.value
        r = ctypes.c_int32()
        check(_lib.lib().weft_context_rank(self._handle, ctypes.byref(r)))
        self.rank: int = r.value
        check(_lib.lib().weft_context_world_size(self._handle, ctypes.byref(r)))
        self.world_size: int = r.value
        _open_contexts.add(self)

    @property
    def handle(self) -> int:
        """The weft_context_t* (raises once closed)."""
        if self._handle is None:
            raise InvalidArgumentError(-1, "the context is closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._handle is None

    @property
    def backend(self) -> str:
        """The backend's name ("gloo", "ucx", "self")."""
        h = self.handle
        return text(lambda b, n, need: _lib.lib().weft_context_backend_name(h, b, n, need))

    def error(self) -> Tuple[int, int, str]:
        """The sticky error: (status, failed rank or -1, message); status 0 while healthy."""
        h = self.handle
        st, fr = ctypes.c_int32(), ctypes.c_int32()
        msg = text(lambda b, n, need: _lib.lib().weft_context_error(
            h, ctypes.byref(st), ctypes.byref(fr), b, n, need))
        return st.value, fr.value, msg

    def abort(self) -> None:
        """Aborts every operation of the context (any thread); it must then be closed."""
        check(_lib.lib().weft_context_abort(self.handle))

    def close(self) -> None:
        """Leaves the world (collective; weft_context_destroy). Idempotent."""
        if self._handle is None:
            return
        h, self._handle = self._handle, None
        _open_contexts.discard(self)
        check(_lib.lib().weft_context_destroy(h))

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._handle is None:
            return "Context(closed)"
        return f"Context(rank={self.rank}, world_size={self.world_size}, backend={self.backend!r})"


@atexit.register
def _close_all() -> None:
    for ctx in list(_open_contexts):
        try:
            ctx.close()
        except Exception:  # exit must go on; the error was the context's own
            pass


class Work:
    """An asynchronous operation (weft_work_t); returned by calls made with async_op=True.

    It holds the operation's buffers until the operation has finished. Dropping an unfinished
    Work waits for it first, so that no buffer is freed under a running transfer.
    """

    def __init__(self, handle: int, keep: Any, result: Any = None) -> None:
        self._handle: Optional[int] = handle
        self._keep = keep
        self._result = result

    def wait(self, timeout: Optional[float] = None) -> Any:
        """Blocks until done (or `timeout` seconds: then returns None and the work goes on).

        Returns the call's result (the output array) once done; raises the operation's
        WeftError if it failed.
        """
        if self._handle is None:
            return self._result
        ms = -1 if timeout is None else int(timeout * 1000)
        status = _lib.lib().weft_work_wait(self._handle, ms)
        if status == IN_PROGRESS:
            return None
        self._release()
        check(status)
        return self._result

    def is_completed(self) -> bool:
        """Non-blocking: whether the operation has finished (wait() then says how)."""
        if self._handle is None:
            return True
        done = ctypes.c_int32()
        check(_lib.lib().weft_work_test(self._handle, ctypes.byref(done)))
        return bool(done.value)

    def _release(self) -> None:
        h, self._handle = self._handle, None
        if h is not None:
            _lib.lib().weft_work_release(h)
        self._keep = None

    def __del__(self) -> None:
        if self._handle is not None:
            try:
                _lib.lib().weft_work_wait(self._handle, -1)
                self._release()
            except Exception:  # interpreter shutdown: the library may be gone already
                pass

