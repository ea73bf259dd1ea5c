"""Held-back tests of `reference.attention`: a plain-loop oracle, softmax by definition,
stability, masks of every broadcastable shape, and every kind of shape error."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.attention import attention, softmax
from reference.attention.strategies import Problem, call_strategies, problems, softmax_inputs

pytestmark = pytest.mark.hidden

TOLERANCE = 1e-12


def close(actual, expected) -> None:
    np.testing.assert_allclose(actual, expected, rtol=TOLERANCE, atol=TOLERANCE)


def loop_softmax(values: list[float]) -> list[float]:
    """One slice by definition, in plain Python: shift by the largest finite value, exp, share."""
    finite = [x for x in values if x != -math.inf]
    if not finite:
        return [0.0] * len(values)
    top = max(finite)
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in values]
    total = math.fsum(exps)
    return [e / total for e in exps]


def oracle_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    moved = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    result = np.zeros(moved.shape)
    for index in np.ndindex(*moved.shape[:-1]):
        result[index] = loop_softmax([float(value) for value in moved[index]])
    return np.moveaxis(result, -1, axis)


def oracle_attention(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Attention by a plain loop over batch, query and key."""
    q, k, v = problem.q, problem.k, problem.v
    lead, (n_queries, d), n_keys, dv = q.shape[:-2], q.shape[-2:], k.shape[-2], v.shape[-1]
    allowed = np.ones((*lead, n_queries, n_keys), dtype=bool)
    if problem.mask is not None:
        allowed = allowed & problem.mask  # numpy's broadcasting, as the contract says
    out = np.zeros((*lead, n_queries, dv))
    weights = np.zeros((*lead, n_queries, n_keys))
    for b in np.ndindex(*lead):
        for i in range(n_queries):
            keys = [j for j in range(n_keys)
                    if allowed[(*b, i, j)] and (not problem.causal or j <= i + n_keys - n_queries)]
            scores = [-math.inf] * n_keys
            for j in keys:
                scores[j] = math.fsum(q[(*b, i, t)] * k[(*b, j, t)] for t in range(d)) / math.sqrt(d)
            row = loop_softmax(scores)
            for j in range(n_keys):
                weights[(*b, i, j)] = row[j]
            for c in range(dv):
                out[(*b, i, c)] = math.fsum(row[j] * v[(*b, j, c)] for j in range(n_keys))
    return out, weights


# --- oracles ---------------------------------------------------------------------------------


@given(problems())
def test_matches_the_loop_oracle(problem: Problem) -> None:
    """out and weights equal the plain loop over batch, query and key, for every mask shape,
    causal or not, any leading dimensions."""
    out, weights = attention(problem.q, problem.k, problem.v, **problem.kwargs())
    expected_out, expected_weights = oracle_attention(problem)
    assert weights.shape == expected_weights.shape
    assert out.shape == expected_out.shape
    assert out.dtype == weights.dtype == np.float64
    close(weights, expected_weights)
    close(out, expected_out)


@settings(max_examples=20)
@given(problems(masked=False, causal=True))
def test_causal_matches_the_loop_oracle(problem: Problem) -> None:
    """Causal attention alone, with Lq below, equal to and above Lk."""
    out, weights = attention(problem.q, problem.k, problem.v, causal=True)
    expected_out, expected_weights = oracle_attention(problem)
    close(weights, expected_weights)
    close(out, expected_out)


@given(softmax_inputs())
def test_softmax_matches_its_definition(pair: tuple[np.ndarray, int]) -> None:
    """Along any axis, negative ones included, with -inf entries and all -inf slices."""
    x, axis = pair
    got = softmax(x, axis=axis)
    assert got.shape == x.shape
    assert got.dtype == np.float64
    close(got, oracle_softmax(x, axis))


@given(softmax_inputs(with_neg_inf=False), st.sampled_from([1e3, -1e3, 1e4, -1e4, 1e6, -1e6]))
def test_softmax_is_exact_at_any_magnitude(pair: tuple[np.ndarray, int], shift: float) -> None:
    """Around a huge constant the result is still the exact softmax, and nothing warns (no
    overflow). The reference is computed on the shifted input itself: adding 1e6 rounds x."""
    x, axis = pair
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = softmax(x + shift, axis=axis)
    close(got, oracle_softmax(x + shift, axis))


# --- softmax edges ---------------------------------------------------------------------------


def test_softmax_all_neg_inf_slices_are_zero_without_warning() -> None:
    """A slice of -inf only gives zeros; other slices are unaffected; nothing warns."""
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = softmax(x)
        by_column = softmax(x, axis=0)
    assert not np.isnan(got).any()
    close(got, [[0, 0, 0], [0.5, 0, 0.5]])
    close(by_column, [[0, 0, 0], [1, 0, 1]])


def test_softmax_neg_inf_weighs_exactly_zero() -> None:
    """A -inf entry next to finite ones weighs exactly 0, not a tiny number."""
    got = softmax([3.0, -np.inf, -1e4])
    assert got[1] == 0.0
    close(got, [1.0, 0.0, 0.0])


def test_softmax_of_float32_input_is_float64() -> None:
    """A float32 array is computed in float64: the result is float64 and exact to 1e-12."""
    x = np.array([0.1, 0.2, 0.7], dtype=np.float32)
    got = softmax(x)
    assert got.dtype == np.float64
    close(got, loop_softmax([float(value) for value in x]))


def test_softmax_keeps_shape_and_accepts_lists() -> None:
    """A list of lists of ints gives a float64 array of the same shape."""
    got = softmax([[1, 1], [2, 2], [3, 3]], axis=-2)
    assert got.shape == (3, 2)
    assert got.dtype == np.float64
    column = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    close(got, np.stack([column, column], axis=1))


def test_softmax_of_a_three_dimensional_array_along_the_middle() -> None:
    """axis=1 of a (2, 3, 2) array: each (i, :, j) slice sums to 1, the others do not."""
    x = np.arange(12.0).reshape(2, 3, 2)
    got = softmax(x, axis=1)
    close(got.sum(axis=1), np.ones((2, 2)))
    close(got[0, :, 0], np.exp([0.0, 2.0, 4.0]) / np.exp([0.0, 2.0, 4.0]).sum())


# --- attention edges -------------------------------------------------------------------------


def test_causal_with_more_queries_than_keys() -> None:
    """Lq = 3, Lk = 2: query i sees keys j <= i - 1, so query 0 sees nothing and gets zeros."""
    out, weights = attention(np.zeros((3, 2)), np.zeros((2, 2)), [[2.0], [4.0]], causal=True)
    close(weights, [[0, 0], [1, 0], [0.5, 0.5]])
    close(out, [[0.0], [2.0], [3.0]])


def test_causal_single_query_sees_every_key() -> None:
    """Decoding one token with a cache: Lq = 1 attends all Lk keys."""
    weights = attention(np.zeros((1, 2)), np.zeros((4, 2)), np.zeros((4, 1)), causal=True)[1]
    close(weights, [[0.25] * 4])


def test_mask_and_causal_combine() -> None:
    """A key is attended only when the mask and the causal rule both allow it."""
    mask = np.array([[True, True, False], [False, True, True], [True, False, True]])
    weights = attention(np.zeros((3, 1)), np.zeros((3, 1)), np.eye(3), mask=mask, causal=True)[1]
    close(weights, [[1, 0, 0], [0, 1, 0], [0.5, 0, 0.5]])


def test_square_mask_is_indexed_query_then_key() -> None:
    """mask[i, j] says whether query i may attend key j, not the other way round."""
    mask = np.array([[True, False], [True, True]])
    q = np.array([[1.0], [-1.0]])
    k = np.array([[2.0], [1.0]])
    weights = attention(q, k, [[1.0], [0.0]], mask=mask)[1]
    row = np.exp([-2.0, -1.0]) / np.exp([-2.0, -1.0]).sum()
    close(weights, [[1.0, 0.0], row])


def test_fully_masked_rows_give_zero_weights_and_output() -> None:
    """A query whose every key is hidden gets zeros, not NaN, and others are unaffected."""
    mask = np.array([[False, False], [True, False]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, weights = attention(np.ones((2, 3)), np.ones((2, 3)), [[5.0, 1.0], [7.0, 1.0]], mask=mask)
    assert not np.isnan(out).any() and not np.isnan(weights).any()
    close(weights, [[0, 0], [1, 0]])
    close(out, [[0, 0], [5, 1]])


def test_batched_mask_shapes_broadcast() -> None:
    """(Lq, Lk), (B, 1, 1, Lk) and (Lk,) masks broadcast over (B, H, Lq, Lk) scores."""
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(2, 3, 2, 4)), rng.normal(size=(2, 3, 3, 4)), rng.normal(size=(2, 3, 3, 2))
    for mask in (rng.random((2, 3)) < 0.6, rng.random((2, 1, 1, 3)) < 0.6, np.array([True, False, True])):
        problem = Problem(q=q, k=k, v=v, mask=mask, causal=False)
        expected_out, expected_weights = oracle_attention(problem)
        out, weights = attention(q, k, v, mask=mask)
        close(weights, expected_weights)
        close(out, expected_out)


def test_leading_dimensions_of_size_one_are_kept() -> None:
    """(1, 1, Lq, d) inputs keep their two leading ones in both results."""
    out, weights = attention(np.zeros((1, 1, 2, 3)), np.zeros((1, 1, 4, 3)), np.ones((1, 1, 4, 5)))
    assert weights.shape == (1, 1, 2, 4)
    assert out.shape == (1, 1, 2, 5)


def test_large_scores_do_not_overflow() -> None:
    """Scores around 1e4 still give finite weights that match the shifted softmax."""
    q, k = np.array([[100.0, 100.0]]), np.array([[100.0, 100.0], [99.0, 99.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = attention(q, k, [[1.0], [0.0]])[1]
    gap = (100.0 * 200.0 - 99.0 * 200.0) / np.sqrt(2.0)
    close(weights, [[1 / (1 + np.exp(-gap)), np.exp(-gap) / (1 + np.exp(-gap))]])


def test_lists_and_ints_are_accepted_as_float64() -> None:
    """Nested lists of ints compute as float64."""
    out, weights = attention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]])
    assert out.dtype == weights.dtype == np.float64
    first = np.exp(1 / np.sqrt(2)) / (np.exp(1 / np.sqrt(2)) + 1)
    close(weights, [[first, 1 - first]])


@pytest.mark.parametrize(
    ("shapes", "mask_shape"),
    [
        (((2, 3), (4, 2), (4, 1)), None),            # d differs
        (((2, 3), (4, 3), (3, 1)), None),            # Lk differs between k and v
        (((1, 2, 3), (2, 4, 3), (2, 4, 1)), None),   # leading 1 against 2: no broadcasting
        (((2, 2, 3), (2, 4, 3), (1, 4, 1)), None),   # v's leading dimension differs
        (((3, 2, 3), (2, 4, 3), (2, 4, 1)), None),   # q's leading dimension differs
        (((2, 2, 3), (1, 4, 3), (2, 4, 1)), None),   # k's leading 1 against 2: no broadcasting
        (((2, 3), (4, 1), (4, 1)), None),            # k's d of 1 against 3: no broadcasting
        (((2, 3), (4, 3), (1, 1)), None),            # v's Lk of 1 against 4: no broadcasting
        (((2, 3), (2, 4, 3), (2, 4, 1)), None),      # q lacks the leading dimension
        (((3,), (4, 3), (4, 1)), None),              # q is 1-D
        (((), (4, 3), (4, 1)), None),                # q is a scalar
        (((2, 3), (), (4, 1)), None),                # k is a scalar
        (((2, 3), (3,), (1, 1)), None),              # k is 1-D
        (((2, 3), (4, 3), (4,)), None),              # v is 1-D
        (((2, 3), (4, 3), (4, 1)), (4, 2)),          # mask transposed
        (((2, 3), (4, 3), (4, 1)), (2,)),            # mask of length Lq instead of Lk
        (((2, 3), (4, 3), (4, 1)), (1, 2, 4)),       # mask with more dimensions
        (((2, 2, 3), (2, 4, 3), (2, 4, 1)), (3, 2, 4)),  # mask's batch differs
    ],
)
def test_every_shape_error_is_a_value_error(shapes, mask_shape) -> None:
    """Each mismatch the contract names raises ValueError."""
    q, k, v = (np.zeros(shape) for shape in shapes)
    mask = None if mask_shape is None else np.ones(mask_shape, dtype=bool)
    with pytest.raises(ValueError):
        attention(q, k, v, mask=mask)


def test_d_may_differ_from_dv() -> None:
    """Keys of size d = 1 and values of size dv = 3 are fine: out is (Lq, dv)."""
    out, weights = attention([[0.0], [1.0]], [[1.0], [2.0]], [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    assert out.shape == (2, 3)
    close(out, weights @ np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))


@pytest.mark.parametrize("name", sorted(call_strategies()))
def test_call_strategies_give_valid_calls(name: str) -> None:
    """Every strategy yields arguments the public function accepts without error."""
    function = {"softmax": softmax, "attention": attention}[name]

    @settings(max_examples=5)
    @given(call=call_strategies()[name])
    def check(call: tuple[tuple, dict]) -> None:
        args, kwargs = call
        function(*args, **kwargs)

    check()
