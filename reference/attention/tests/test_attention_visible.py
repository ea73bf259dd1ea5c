"""Worked examples of the attention contract in `problem.md`: softmax, scaling, masks, shapes."""

from __future__ import annotations

import numpy as np
import pytest

from reference.attention import attention, softmax

Q, K, V = np.zeros((2, 4)), np.arange(12.0).reshape(3, 4), np.array([[1.0], [2.0], [3.0]])


def close(actual, expected) -> None:
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)


def test_problem_example() -> None:
    """The example of problem.md: causal with Lq < Lk, a query that sees nothing, the scale."""
    out, weights = attention(Q, K, V, causal=True)
    close(weights, [[0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    close(out, [[1.5], [2.0]])
    close(attention(Q, K, V, mask=[False, False, True], causal=True)[0], [[0.0], [3.0]])
    weights = attention([[1.0, 1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 1.0], [0.0] * 4], [[1.0], [0.0]])[1]
    close(weights, [[np.exp(2) / (np.exp(2) + 1), 1 / (np.exp(2) + 1)]])
    close(softmax([1e4, 1e4, -np.inf]), [0.5, 0.5, 0.0])
    close(softmax([-np.inf, -np.inf]), [0.0, 0.0])


def test_softmax_of_small_values() -> None:
    """softmax([0, ln 2, ln 5]) is [1, 2, 5] / 8, along the last axis by default."""
    got = softmax([[0.0, np.log(2.0), np.log(5.0)]])
    close(got, [[1 / 8, 2 / 8, 5 / 8]])
    assert got.shape == (1, 3)


def test_softmax_along_another_axis() -> None:
    """With axis=0 each column sums to 1."""
    got = softmax([[0.0, 1.0], [np.log(3.0), 1.0]], axis=0)
    close(got, [[0.25, 0.5], [0.75, 0.5]])


def test_softmax_does_not_overflow() -> None:
    """Huge scores give the same weights as small ones with the same differences."""
    close(softmax([1e4, 1e4 + np.log(3.0)]), [0.25, 0.75])
    close(softmax([-1e4, -1e4 + np.log(3.0)]), [0.25, 0.75])


def test_scores_are_scaled_by_the_square_root_of_d() -> None:
    """With d = 4 a raw score of 4 becomes 2: weights softmax([2, 0]), not softmax([1, 0])."""
    q, k, v = [[1.0, 1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]], [[10.0], [0.0]]
    out, weights = attention(q, k, v)
    expected = np.exp(2.0) / (np.exp(2.0) + 1.0)
    close(weights, [[expected, 1 - expected]])
    close(out, [[10 * expected]])


def test_causal_square_attends_itself_and_the_past() -> None:
    """With Lq == Lk, query i sees keys 0..i: equal scores give uniform weights over them."""
    weights = attention(np.zeros((3, 2)), np.ones((3, 2)), np.eye(3), causal=True)[1]
    close(weights, [[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]])


def test_padding_mask_hides_keys() -> None:
    """A mask of shape (Lk,) hides the same keys from every query; hidden keys weigh 0."""
    out, weights = attention(Q, K, V, mask=[True, False, True])
    close(weights, [[0.5, 0.0, 0.5], [0.5, 0.0, 0.5]])
    close(out, [[2.0], [2.0]])


def test_batched_inputs_keep_their_leading_dimensions() -> None:
    """(B, H, Lq, d) queries give (B, H, Lq, Lk) weights and (B, H, Lq, dv) outputs."""
    q, k, v = np.zeros((2, 3, 4, 5)), np.zeros((2, 3, 6, 5)), np.ones((2, 3, 6, 7))
    out, weights = attention(q, k, v)
    assert weights.shape == (2, 3, 4, 6)
    assert out.shape == (2, 3, 4, 7)
    close(weights, np.full((2, 3, 4, 6), 1 / 6))
    close(out, np.ones((2, 3, 4, 7)))


@pytest.mark.parametrize(
    ("q", "k", "v", "mask"),
    [
        (np.zeros((2, 3)), np.zeros((4, 2)), np.zeros((4, 1)), None),
        (np.zeros((2, 3)), np.zeros((4, 3)), np.zeros((5, 1)), None),
        (np.zeros((1, 2, 3)), np.zeros((2, 4, 3)), np.zeros((2, 4, 1)), None),
        (np.zeros(3), np.zeros((4, 3)), np.zeros((4, 1)), None),
        (np.zeros((2, 3)), np.zeros((4, 3)), np.zeros((4, 1)), np.ones((4, 2), dtype=bool)),
    ],
    ids=["d-mismatch", "lk-mismatch", "leading-mismatch", "one-dimensional", "transposed-mask"],
)
def test_bad_shapes_raise_value_error(q, k, v, mask) -> None:
    """Each kind of shape error is refused with a ValueError (the message is yours to word)."""
    with pytest.raises(ValueError):
        attention(q, k, v, mask=mask)
