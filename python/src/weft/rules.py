"""Op-sharding rules (weft/rules.h): which layouts an operator needs and produces."""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _dlpack, _lib
from .context import Context
from .errors import InvalidArgumentError, check, text
from .layout import Layout
from .mesh import _destroy

ATTR_INT, ATTR_INTS, ATTR_FLOAT, ATTR_BOOL, ATTR_STRING, ATTR_DTYPE = range(6)


def _attr(name: str, value: Any, keep: List[Any]) -> _lib.Attr_t:
    a = _lib.Attr_t()
    a.struct_size = ctypes.sizeof(_lib.Attr_t)
    a.name = name.encode()
    keep.append(a.name)
    if isinstance(value, (bool, np.bool_)):
        a.kind, a.i = ATTR_BOOL, int(value)
    elif isinstance(value, (int, np.integer)):
        a.kind, a.i = ATTR_INT, int(value)
    elif isinstance(value, (float, np.floating)):
        a.kind, a.f = ATTR_FLOAT, float(value)
    elif isinstance(value, str):
        a.kind, a.s = ATTR_STRING, value.encode()
        keep.append(a.s)
    elif isinstance(value, (np.dtype, type)):
        a.kind, a.dtype = ATTR_DTYPE, _dlpack.to_dl_dtype(value)
    elif isinstance(value, (list, tuple)):
        ints = (ctypes.c_int64 * max(len(value), 1))(*[int(v) for v in value])
        keep.append(ints)
        a.kind, a.ints, a.n_ints = ATTR_INTS, ctypes.cast(ints, _lib.P64), len(value)
    else:
        raise InvalidArgumentError(-1, f"attribute {name}={value!r}: take int, float, bool, "
                                   "str, a dtype or a sequence of ints")
    return a


class Strategy:
    """One way to run an operator: the layouts its inputs must be brought to, its outputs'
    layouts and the estimated cost in seconds (redistributing the inputs included)."""

    def __init__(self, handle: int, inputs: Sequence[Layout]) -> None:
        self._handle = handle
        lib = _lib.lib()
        mesh = inputs[0].mesh
        n = ctypes.c_int32()
        check(lib.weft_strategy_num_inputs(handle, ctypes.byref(n)))
        self.input_layouts: Tuple[Layout, ...] = tuple(
            self._layout(lib.weft_strategy_input_layout, i, mesh) for i in range(n.value))
        check(lib.weft_strategy_num_outputs(handle, ctypes.byref(n)))
        self.output_layouts: Tuple[Layout, ...] = tuple(
            self._layout(lib.weft_strategy_output_layout, i, mesh) for i in range(n.value))
        cost = ctypes.c_double()
        check(lib.weft_strategy_cost(handle, ctypes.byref(cost)))
        self.cost: float = cost.value
        # Windowed operators: per input, its halo (empty: none) and the boundary constant.
        self.input_halos: Tuple[Tuple[List[Any], float], ...] = tuple(
            self._halo(i, mesh.size()) for i in range(len(self.input_layouts)))

    def _halo(self, i: int, nranks: int) -> Tuple[List[Any], float]:
        from .halo import BOUNDARIES, HaloDim  # halo imports plan; rules stays light
        desc = _lib.HaloDesc_t()
        desc.struct_size = ctypes.sizeof(_lib.HaloDesc_t)
        check(_lib.lib().weft_strategy_input_halo(self._handle, i, ctypes.byref(desc)))
        dims = []
        for k in range(desc.ndims):
            d = desc.dims[k]
            dims.append(HaloDim(d.dim, d.lo, d.hi, d.pad_lo, d.pad_hi,
                                boundary_lo=BOUNDARIES[d.boundary_lo],
                                boundary_hi=BOUNDARIES[d.boundary_hi],
                                windows=list(d.windows[:2 * nranks]) if d.windows else None))
        return dims, desc.constant_value

    def halo_plan(self, i: int, *, rank: Optional[int] = None) -> Any:
        """The halo plan input i needs (weft.HaloPlan over input_layouts[i]), or None when the
        local kernel runs on the local block with the operator's own padding."""
        from .halo import HaloPlan
        dims, constant = self.input_halos[i]
        if not dims:
            return None
        return HaloPlan(self.input_layouts[i], dims, constant=constant, rank=rank)

    def _layout(self, fn: Any, i: int, mesh: Any) -> Layout:
        out = ctypes.c_void_p()
        check(fn(self._handle, i, ctypes.byref(out)))
        return Layout._wrap(out.value, mesh)

    def describe(self) -> str:
        return text(lambda b, n, need: _lib.lib().weft_strategy_describe(self._handle, b, n, need))

    def __del__(self) -> None:
        _destroy("weft_strategy_destroy", getattr(self, "_handle", None))

    def __repr__(self) -> str:
        return (f"Strategy(inputs={[list(l.placements) for l in self.input_layouts]}, "
                f"outputs={[list(l.placements) for l in self.output_layouts]}, "
                f"cost={self.cost:.3g})")


class Rules:
    """A rule registry with the built-in operators (weft_rules_create), and its cache."""

    def __init__(self) -> None:
        handle = ctypes.c_void_p()
        check(_lib.lib().weft_rules_create(ctypes.byref(handle)))
        self._handle = handle.value

    def __del__(self) -> None:
        _destroy("weft_rules_destroy", getattr(self, "_handle", None))

    def ops(self) -> List[str]:
        """The canonical names of the registered operators, sorted."""
        return text(lambda b, n, need: _lib.lib().weft_rules_list_ops(self._handle, b, n, need)
                    ).split()

    def register_einsum(self, name: str, equation: str) -> None:
        check(_lib.lib().weft_rules_register_einsum(self._handle, name.encode(),
                                                    equation.encode(), None))

    def load_string(self, rules_text: str, origin: Optional[str] = None) -> None:
        """Registers a rules file's text ("weft-rules 1", einsum and alias lines)."""
        check(_lib.lib().weft_rules_load_string(
            self._handle, rules_text.encode(), None if origin is None else origin.encode()))

    def load_plugin(self, name_or_path: str) -> None:
        """Loads a rule plugin ("aten", "scientific", or a path) and registers its operators."""
        check(_lib.lib().weft_rules_load_plugin(self._handle, name_or_path.encode()))

    def attach(self, context: Context) -> None:
        """Checks (collectively) that every rank's registry holds the same operators."""
        check(_lib.lib().weft_rules_attach(self._handle, context.handle))

    def _args(self, inputs: Sequence[Layout], attrs: dict) -> Tuple[Any, Any, List[Any]]:
        if not inputs:
            raise InvalidArgumentError(-1, "an operator needs at least one input layout")
        keep: List[Any] = []
        cin = (ctypes.c_void_p * len(inputs))(*[l.handle for l in inputs])
        cattrs = (_lib.Attr_t * max(len(attrs), 1))(
            *[_attr(k, v, keep) for k, v in attrs.items()])
        return cin, cattrs, keep

    def propagate(self, op: str, *inputs: Layout, **attrs: Any) -> Strategy:
        """The cheapest strategy for `op` over the input layouts, e.g.
        rules.propagate("linear", x, w) or rules.propagate("sum", x, dim=[1], keepdim=False)."""
        cin, cattrs, _keep = self._args(inputs, attrs)
        out = ctypes.c_void_p()
        check(_lib.lib().weft_rules_propagate(self._handle, op.encode(), len(inputs), cin, cattrs,
                                              len(attrs), ctypes.byref(out)))
        return Strategy(out.value, inputs)

    def enumerate(self, op: str, *inputs: Layout, **attrs: Any) -> List[Strategy]:
        """Every candidate strategy, cheapest first."""
        cin, cattrs, _keep = self._args(inputs, attrs)
        count = ctypes.c_int32()
        lib = _lib.lib()
        check(lib.weft_rules_enumerate(self._handle, op.encode(), len(inputs), cin, cattrs,
                                       len(attrs), None, 0, ctypes.byref(count)))
        out = (ctypes.c_void_p * max(count.value, 1))()
        check(lib.weft_rules_enumerate(self._handle, op.encode(), len(inputs), cin, cattrs,
                                       len(attrs), out, count.value, ctypes.byref(count)))
        return [Strategy(out[i], inputs) for i in range(count.value)]


_default: Optional[Rules] = None


def propagate(op: str, *inputs: Layout, **attrs: Any) -> Strategy:
    """Rules().propagate on a process-wide registry of the built-in operators."""
    global _default
    if _default is None:
        _default = Rules()
    return _default.propagate(op, *inputs, **attrs)
