"""Weft's status codes (weft/status.h) as Python exceptions.

Every failing C call raises the WeftError subclass of its status, carrying the status code and
the message of weft_last_error() (which names the function, the argument and its value).
"""

from __future__ import annotations

import ctypes
from typing import Callable, Dict, Type

from . import _lib

OK = 0
IN_PROGRESS = 1


class WeftError(RuntimeError):
    """A Weft call failed: `status` is the weft_status_t, `message` Weft's explanation."""

    status: int = 0

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{message} [{status_name(status)}]")
        self.status = status
        self.message = message


class InvalidArgumentError(WeftError, ValueError):
    """WEFT_ERR_INVALID_ARGUMENT: a malformed or inconsistent argument."""


class InvalidUsageError(WeftError):
    """WEFT_ERR_INVALID_USAGE: a valid call at the wrong time or on the wrong object."""


class UnsupportedError(WeftError, NotImplementedError):
    """WEFT_ERR_UNSUPPORTED."""


class NotAvailableError(WeftError):
    """WEFT_ERR_NOT_AVAILABLE: a resource or configuration is missing."""


class VersionMismatchError(WeftError):
    """WEFT_ERR_VERSION_MISMATCH."""


class WeftMemoryError(WeftError, MemoryError):
    """WEFT_ERR_OUT_OF_MEMORY."""


class WeftTimeoutError(WeftError, TimeoutError):
    """WEFT_ERR_TIMEOUT: the operation's deadline passed (the context is failed)."""


class PeerFailureError(WeftError):
    """WEFT_ERR_PEER_FAILURE: another rank died or its connection dropped."""


class AbortedError(WeftError):
    """WEFT_ERR_ABORTED: weft_context_abort, or a peer rejected the operation."""


class WeftSystemError(WeftError, OSError):
    """WEFT_ERR_SYSTEM: an operating-system call failed."""


class BackendError(WeftError):
    """WEFT_ERR_BACKEND: the communication library reported an error."""


class PluginError(WeftError):
    """WEFT_ERR_PLUGIN: a plugin misbehaved."""


class InternalError(WeftError):
    """WEFT_ERR_INTERNAL: a bug in Weft."""


_BY_STATUS: Dict[int, Type[WeftError]] = {
    -1: InvalidArgumentError,
    -2: InvalidUsageError,
    -3: UnsupportedError,
    -4: NotAvailableError,
    -5: VersionMismatchError,
    -6: WeftMemoryError,
    -7: WeftTimeoutError,
    -8: PeerFailureError,
    -9: AbortedError,
    -10: WeftSystemError,
    -11: BackendError,
    -12: PluginError,
    -13: InternalError,
}


def status_name(status: int) -> str:
    """weft_status_string's text for `status`."""
    return _lib.lib().weft_status_string(status).decode()


def error(status: int, message: str) -> WeftError:
    """The exception for `status` with `message`."""
    return _BY_STATUS.get(status, WeftError)(status, message)


def check(status: int) -> int:
    """Raises the exception of a failed status with weft_last_error(); returns OK/IN_PROGRESS."""
    if status < 0:
        raise error(status, _lib.lib().weft_last_error().decode(errors="replace"))
    return status


def text(call: Callable[[ctypes.Array, int, ctypes.c_size_t], int]) -> str:
    """Runs a (buf, len, needed) text call, growing the buffer once if it is too small."""
    needed = ctypes.c_size_t(0)
    buf = ctypes.create_string_buffer(1024)
    status = call(buf, len(buf), ctypes.byref(needed))
    if needed.value > len(buf):
        buf = ctypes.create_string_buffer(needed.value)
        status = call(buf, len(buf), ctypes.byref(needed))
    check(status)
    return buf.value.decode(errors="replace").rstrip("\n")
