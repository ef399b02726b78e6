"""Zero-copy views of caller buffers as DLTensors for the C ABI.

NumPy arrays are described straight from their array interface (data pointer, shape, byte
strides); that path also takes read-only arrays, which NumPy refuses to export through
__dlpack__. Any other object with __dlpack__ (a torch tensor on the CPU or a GPU, a CuPy array)
is consumed through its DLPack capsule: the capsule is kept alive, not renamed, so its producer
still owns the memory and frees it when the capsule goes.

CUDA memory (the nccl backend) is asked for on the stream the call runs on: the DLPack
protocol's __dlpack__(stream=...) lets the producer order its pending work before that stream
(torch records an event on its current stream and makes ours wait on it), so no host
synchronisation is needed on either side.
"""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ._lib import DLDataType, DLDevice, DLManagedTensor, DLTensor
from .errors import InvalidArgumentError

KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13
_HOST = (KDL_CPU, KDL_CUDA_HOST)
_CUDA = (KDL_CUDA, KDL_CUDA_MANAGED)
# The DLPack protocol's name for the legacy default stream (0 and None are not streams there).
_LEGACY_DEFAULT_STREAM = 1
_BOOL_CODE = 6  # WEFT_DLPACK_BOOL_CODE
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": _BOOL_CODE}
_KINDS = {v: k for k, v in _CODES.items()}

DTypeLike = Any


def to_dl_dtype(dtype: DTypeLike) -> DLDataType:
    """The DLDataType of a NumPy dtype (or anything np.dtype accepts)."""
    dt = np.dtype(dtype)
    code = _CODES.get(dt.kind)
    if code is None or dt.itemsize == 0:
        raise InvalidArgumentError(-1, f"dtype {dt} has no DLPack equivalent Weft takes")
    if not dt.isnative:
        raise InvalidArgumentError(-1, f"dtype {dt} is not in this machine's byte order")
    return DLDataType(code, dt.itemsize * 8, 1)


class _ArrayInterface(ctypes.Structure):
    """NumPy's PyArrayInterface, behind ndarray.__array_struct__ (a stable C structure)."""

    _fields_ = [("two", ctypes.c_int), ("nd", ctypes.c_int), ("typekind", ctypes.c_char),
                ("itemsize", ctypes.c_int), ("flags", ctypes.c_int),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("data", ctypes.c_void_p), ("descr", ctypes.c_void_p)]


# A prototype of our own: setting argtypes on ctypes.pythonapi's would change it for everyone.
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def data_pointer(arr: np.ndarray) -> int:
    """The address of arr's first element.

    Read from __array_struct__: half the time of __array_interface__, which builds a dict,
    and this is on every call's path (bench/python/binding_overhead.py).
    """
    return _ArrayInterface.from_address(_capsule_pointer(arr.__array_struct__, None)).data or 0


def cpu_tensor(shape: "ctypes.Array", dl: DLDataType) -> DLTensor:
    """A DLTensor of a row-major CPU buffer of `shape` (data set by the caller)."""
    return DLTensor(None, DLDevice(KDL_CPU, 0), len(shape), dl, shape, None, 0)


def to_np_dtype(dl: DLDataType) -> np.dtype:
    """The NumPy dtype of a DLDataType (bfloat16 and other codes NumPy lacks raise)."""
    kind = _KINDS.get(dl.code)
    if kind is None or dl.lanes != 1:
        raise InvalidArgumentError(-1, f"DLPack dtype code {dl.code} has no NumPy dtype")
    return np.dtype(f"{kind}{dl.bits // 8}") if kind != "b" else np.dtype(np.bool_)


def stream_handle(stream: Any) -> Optional[int]:
    """The cudaStream_t of `stream`: None (the legacy default stream), an integer handle, or an
    object with a `cuda_stream` attribute (torch.cuda.Stream, cupy.cuda.Stream)."""
    if stream is None:
        return None
    handle = getattr(stream, "cuda_stream", stream)
    if isinstance(handle, bool) or not isinstance(handle, int) or handle < 0:
        raise InvalidArgumentError(
            -1, f"stream is a {type(stream).__name__}: pass None, a cudaStream_t as an int, or "
            "an object with a cuda_stream attribute (torch.cuda.Stream)"
        )
    return handle or None


class View:
    """One DLTensor describing a caller's buffer, with what must live as long as it."""

    __slots__ = ("tensor", "keep", "shape", "dtype")

    def __init__(self, tensor: DLTensor, keep: Tuple[Any, ...], shape: Tuple[int, ...],
                 dtype: Tuple[int, int]) -> None:
        self.tensor = tensor
        self.keep = keep
        self.shape = shape
        self.dtype = dtype

    @property
    def on_device(self) -> bool:
        """Whether the buffer is CUDA device (or managed) memory."""
        return self.tensor.device.device_type in _CUDA


def _numpy_view(arr: np.ndarray, name: str, writable: bool) -> View:
    if writable and not arr.flags.writeable:
        raise InvalidArgumentError(-1, f"{name} is read-only but Weft writes it")
    ndim = arr.ndim
    itemsize = arr.itemsize
    shape = (ctypes.c_int64 * ndim)(*arr.shape)
    strides = None
    if not arr.flags.c_contiguous:
        els = []
        for s in arr.strides:
            if s < 0 or s % itemsize:
                raise InvalidArgumentError(
                    -1, f"{name} has byte strides {arr.strides}: Weft takes non-negative "
                    f"multiples of the item size ({itemsize}); pass a copy"
                )
            els.append(s // itemsize)
        strides = (ctypes.c_int64 * ndim)(*els)
    dl = to_dl_dtype(arr.dtype)
    t = DLTensor(data_pointer(arr), DLDevice(KDL_CPU, 0), ndim, dl, shape, strides, 0)
    return View(t, (arr, shape, strides), arr.shape, (dl.code, dl.bits))


def _capsule(obj: Any, stream: Optional[int]) -> Any:
    """obj's capsule, made ready on `stream` where obj lives on a CUDA device."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and int(device()[0]) in _CUDA:
        return obj.__dlpack__(stream=stream or _LEGACY_DEFAULT_STREAM)
    return obj.__dlpack__()


def _capsule_view(obj: Any, name: str, stream: Optional[int]) -> View:
    capsule = _capsule(obj, stream)
    managed = ctypes.cast(_capsule_pointer(capsule, b"dltensor"),
                          ctypes.POINTER(DLManagedTensor)).contents
    t = managed.dl_tensor
    if t.device.device_type not in _HOST + _CUDA:
        raise InvalidArgumentError(
            -1, f"{name} is on DLPack device {t.device.device_type}: Weft takes CPU, CUDA host "
            "and CUDA device memory"
        )
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        for i in range(t.ndim):
            if t.strides[i] < 0:
                raise InvalidArgumentError(-1, f"{name} has a negative stride; pass a copy")
    return View(t, (obj, capsule), shape, (t.dtype.code, t.dtype.bits))


def view(obj: Any, name: str, writable: bool = False, stream: Optional[int] = None) -> View:
    """A DLTensor over obj's memory (no copy): a NumPy array or any __dlpack__ producer; CUDA
    memory is made ready on `stream` (a cudaStream_t, None for the legacy default stream)."""
    if isinstance(obj, np.ndarray):
        return _numpy_view(obj, name, writable)
    if hasattr(obj, "__dlpack__"):
        return _capsule_view(obj, name, stream)
    raise InvalidArgumentError(
        -1, f"{name} is a {type(obj).__name__}: pass a NumPy array or a DLPack tensor"
    )


def check_block(v: View, name: str, shape: Sequence[int], dl: DLDataType) -> None:
    """Raises before any communication when a buffer does not match its layout's block.

    The C ABI checks this too, but a rank failing there aborts its peers' matching operation
    and leaves the context aborted (SPEC §6.4); checked here, the caller can fix and retry.
    """
    if v.dtype != (dl.code, dl.bits):
        got = _KINDS.get(v.dtype[0], "?")
        raise InvalidArgumentError(
            -1, f"{name} has dtype {got}{v.dtype[1]} but the layout's is "
            f"{to_np_dtype(dl)}"
        )
    if tuple(v.shape) != tuple(shape):
        raise InvalidArgumentError(
            -1, f"{name} has shape {tuple(v.shape)} but this rank's block is {tuple(shape)}"
        )


def empty_like(like: Any, v: Optional[View], shape: Sequence[int], dtype: Any, name: str) -> Any:
    """A new buffer of `shape` where `like` (viewed as v) lives: NumPy for host memory; for
    CUDA memory through like.new_empty (torch), since NumPy cannot hold it."""
    if v is None or not v.on_device:
        return np.empty(tuple(shape), dtype=dtype)
    new_empty = getattr(like, "new_empty", None)
    if new_empty is None:
        raise InvalidArgumentError(
            -1, f"{name} is None and the input is CUDA memory of a {type(like).__name__}, which "
            f"has no new_empty: pass {name}"
        )
    return new_empty(tuple(shape))


def views_array(views: List[Optional[View]]) -> "ctypes.Array":
    """A C array of DLTensor pointers (NULL for None) for the batched calls."""
    arr = (ctypes.POINTER(DLTensor) * len(views))()
    for i, v in enumerate(views):
        if v is not None:
            arr[i] = ctypes.pointer(v.tensor)
    return arr
