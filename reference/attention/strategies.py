"""Hypothesis strategies for valid `attention` inputs.

Shapes are small (sizes 1 to 4, up to two leading dimensions) but chosen to expose shape errors:
`Lq` and `Lk` differ as often as not, so a transposed mask or an unshifted causal diagonal shows;
`d` differs from `dv` and from 1, so a wrong scale shows; masks come in every broadcastable
shape, and some hide every key of a query.

`call_strategies` maps each public function to valid `(args, kwargs)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.strategies import SearchStrategy

Call = tuple[tuple[Any, ...], dict[str, Any]]
_VALUES = st.floats(min_value=-3.0, max_value=3.0, allow_nan=False, allow_subnormal=False)
# Built once: strategies made inside a draw are built and validated again for every example.
_SOFTMAX_SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
_SOFTMAX_VALUES = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_subnormal=False)
_SOFTMAX_VALUES_OR_NEG_INF = _SOFTMAX_VALUES | st.just(-np.inf)


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One valid `attention` call."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    mask: np.ndarray | None
    causal: bool

    def kwargs(self) -> dict[str, Any]:
        return {"mask": self.mask, "causal": self.causal}


def _floats(shape: tuple[int, ...]) -> SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=_VALUES)


@st.composite
def mask_shapes(draw: st.DrawFn, lead: tuple[int, ...], n_queries: int, n_keys: int) -> tuple[int, ...]:
    """A shape that broadcasts to `lead + (n_queries, n_keys)`: some trailing dimensions of it,
    each kept or set to 1."""
    full = (*lead, n_queries, n_keys)
    kept = draw(st.integers(min_value=1, max_value=len(full)))
    return tuple(size if draw(st.booleans()) else 1 for size in full[len(full) - kept:])


@st.composite
def problems(draw: st.DrawFn, *, masked: bool | None = None, causal: bool | None = None) -> Problem:
    """q, k, v with equal leading dimensions, and a mask and causal flag (`None`: either)."""
    lead = tuple(draw(st.lists(st.integers(min_value=1, max_value=3), max_size=2)))
    n_queries, n_keys, d, dv = (draw(st.integers(min_value=1, max_value=4)) for _ in range(4))
    mask = None
    if draw(st.booleans()) if masked is None else masked:
        shape = draw(mask_shapes(lead, n_queries, n_keys))
        mask = draw(hnp.arrays(np.bool_, shape))
    return Problem(
        q=draw(_floats((*lead, n_queries, d))),
        k=draw(_floats((*lead, n_keys, d))),
        v=draw(_floats((*lead, n_keys, dv))),
        mask=mask,
        causal=draw(st.booleans()) if causal is None else causal,
    )


@st.composite
def softmax_inputs(draw: st.DrawFn, *, with_neg_inf: bool = True) -> tuple[np.ndarray, int]:
    """An array of 1 to 3 dimensions (some entries -inf when `with_neg_inf`) and a valid axis."""
    shape = draw(_SOFTMAX_SHAPES)
    elements = _SOFTMAX_VALUES_OR_NEG_INF if with_neg_inf else _SOFTMAX_VALUES
    x = draw(hnp.arrays(np.float64, shape, elements=elements))
    return x, draw(st.integers(min_value=-len(shape), max_value=len(shape) - 1))


def call_strategies() -> dict[str, SearchStrategy[Call]]:
    """For each public function, a strategy of valid `(args, kwargs)`."""
    return {
        "softmax": softmax_inputs().map(lambda pair: ((pair[0],), {"axis": pair[1]})),
        "attention": problems().map(lambda p: ((p.q, p.k, p.v), p.kwargs())),
    }
