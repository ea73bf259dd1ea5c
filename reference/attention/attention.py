"""Scaled dot-product attention, batched over any leading dimensions, in numpy.

Masked scores become -inf before the softmax, so a masked key gets weight exactly 0; a query
with nothing to attend gets zeros rather than the NaN of 0 / 0. The contract is in `problem.md`
beside this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

Floats = NDArray[np.float64]


def softmax(x: ArrayLike, axis: int = -1) -> Floats:
    """`exp(x) / sum(exp(x))` along `axis`, shifted by the maximum so that nothing overflows.

    `-inf` entries get weight 0, and a slice that is all `-inf` gives all zeros.
    """
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    # An all -inf slice has peak -inf, and -inf - -inf is NaN: shift such a slice by 0 instead.
    peak = np.where(np.isneginf(peak), 0.0, peak)
    exps = np.exp(x - peak)
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, *, mask: ArrayLike | None = None, causal: bool = False
) -> tuple[Floats, Floats]:
    """Return `(out, weights)`: `weights = softmax(q @ k^T / sqrt(d))` over the keys each query
    may attend, and `out = weights @ v`."""
    q, k, v = _as_inputs(q, k, v)
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if causal:
        n_queries, n_keys = scores.shape[-2:]
        rows = np.arange(n_queries)[:, None]
        # Queries are the last n_queries positions of the keys, as when decoding with a cache.
        scores = np.where(np.arange(n_keys) <= rows + (n_keys - n_queries), scores, -np.inf)
    if mask is not None:
        scores = np.where(_broadcast_mask(mask, scores.shape), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return np.einsum("...qk,...kv->...qv", weights, v), weights


def _as_inputs(q: ArrayLike, k: ArrayLike, v: ArrayLike) -> tuple[Floats, Floats, Floats]:
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise ValueError(f"q, k and v need at least 2 dimensions, got {q.shape}, {k.shape}, {v.shape}")
    # einsum would broadcast a size-1 d or Lk against any other: these checks are not redundant.
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share the last dimension d, got {q.shape} and {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same number of keys, got {k.shape} and {v.shape}")
    # No broadcasting between q, k and v: a batch of 1 against a batch of 2 is a caller's mistake.
    if not q.shape[:-2] == k.shape[:-2] == v.shape[:-2]:
        raise ValueError(f"q, k and v must have the same leading dimensions, got {q.shape}, {k.shape}, {v.shape}")
    return q, k, v


def _broadcast_mask(mask: Any, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    try:
        return np.broadcast_to(np.asarray(mask, dtype=bool), shape)
    except ValueError:
        raise ValueError(f"mask of shape {np.shape(mask)} does not broadcast to the scores' shape {shape}") from None
