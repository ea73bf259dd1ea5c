"""Masked scaled dot-product attention, written from the contract only."""
from __future__ import annotations

import numpy as np


def softmax(x, axis=-1):
    arr = np.array(x, dtype=float)
    live = arr != -np.inf
    biggest = np.max(np.where(live, arr, -1e308), axis=axis, keepdims=True)
    raised = np.where(live, np.exp(np.where(live, arr - biggest, 0.0)), 0.0)
    norm = raised.sum(axis=axis, keepdims=True)
    safe = np.where(norm == 0.0, 1.0, norm)
    return raised / safe


def attention(q, k, v, *, mask=None, causal=False):
    Q, K, V = np.array(q, dtype=float), np.array(k, dtype=float), np.array(v, dtype=float)
    if min(Q.ndim, K.ndim, V.ndim) < 2:
        raise ValueError("inputs need a sequence and a feature axis")
    if Q.shape[:-2] != K.shape[:-2] or K.shape[:-2] != V.shape[:-2]:
        raise ValueError("batch axes disagree")
    if K.shape[-2] != V.shape[-2] or Q.shape[-1] != K.shape[-1]:
        raise ValueError("inner sizes disagree")
    lq, lk = Q.shape[-2], K.shape[-2]
    logits = np.matmul(Q, np.swapaxes(K, -1, -2)) * (Q.shape[-1] ** -0.5)
    keep = np.full(logits.shape, True)
    if mask is not None:
        m = np.array(mask, dtype=bool)
        if m.ndim > logits.ndim:
            raise ValueError("mask has too many axes")
        try:
            keep = keep & np.broadcast_to(m, logits.shape)
        except ValueError as exc:
            raise ValueError("mask shape incompatible") from exc
    if causal:
        keep = keep & np.tri(lq, lk, lk - lq, dtype=bool)
    probs = softmax(np.where(keep, logits, -np.inf), axis=-1)
    return np.matmul(probs, V), probs
