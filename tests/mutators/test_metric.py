"""Golden, edge-case and behaviour tests for the metric family."""

from __future__ import annotations

import textwrap
from collections import Counter

import numpy as np
import pytest

from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families import metric
from bugsmith.mutators.testing import check_example, mutated_sources

OPERATORS = {cls.name: cls for cls in metric.MUTATORS}
CASES = [
    pytest.param(cls, index, id=f"{cls.name}-{index}")
    for cls in metric.MUTATORS
    for index in range(len(cls.examples))
]

# A small ROC implementation written for these tests (the reference one is edited by others).
ROC = textwrap.dedent(
    """
    import numpy as np


    def roc_curve(y, s):
        order = np.argsort(-s)
        s, y = s[order], y[order]
        tps = np.cumsum(y)
        fps = np.cumsum(1 - y)
        # one point per distinct score
        last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]
        fpr = np.r_[0.0, fps[last]] / fps[-1]
        tpr = np.r_[0.0, tps[last]] / tps[-1]
        return fpr, tpr, np.r_[np.inf, s[last]]


    def roc_auc(y, s):
        fpr, tpr, _ = roc_curve(y, s)
        return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2)


    def library_auc(y, s):
        fpr, tpr, _ = roc_curve(y, s)
        return float(np.trapezoid(tpr, fpr))
    """
)
# Ties inside and across classes, and a negative tied with the top score (without one, the
# segment from (0, 0) is vertical and dropping the origin would not change the area).
LABELS = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0])
SCORES = np.array([0.9, 0.4, 0.35, 0.8, 0.8, 0.5, 0.9, 0.35, 0.35])


def _results(source: str) -> tuple:
    """Both AUCs of the ROC module in `source`; an exception is a result too."""
    namespace: dict = {}
    exec(compile(source, "roc.py", "exec"), namespace)
    try:
        return namespace["roc_auc"](LABELS, SCORES), namespace["library_auc"](LABELS, SCORES)
    except Exception as error:  # a loud mutant still differs
        return (type(error).__name__,)


def _mutants(source: str):
    mutators = [cls() for cls in metric.MUTATORS]
    return mutants_of_source(source, file="roc.py", module="roc", mutators=mutators).mutants


@pytest.mark.parametrize(("cls", "index"), CASES)
def test_golden_example(cls, index):
    """Each mutator turns its example into exactly the listed mutants, no more, no fewer."""
    check_example(cls(), cls.examples[index])


def test_operators_are_well_formed():
    """Names are unique and prefixed `metric/`; each mutator has a docstring and a near miss."""
    names = [cls.name for cls in metric.MUTATORS]
    assert len(names) == len(set(names))
    for cls in metric.MUTATORS:
        assert cls.name.startswith("metric/") and cls.family.value == "metric"
        assert cls.__doc__ and "Realistic" in cls.__doc__
        assert any(example.after for example in cls.examples), cls.name
        assert any(not example.after for example in cls.examples), cls.name


def test_the_original_roc_module_is_right():
    """The test's own ROC module agrees with scikit-learn, so its mutants are bugs, not fixes."""
    from sklearn.metrics import roc_auc_score

    expected = roc_auc_score(LABELS, SCORES)
    assert _results(ROC) == pytest.approx((expected, expected))


def test_roc_module_gets_every_metric_bug():
    """Each of the card's metric bugs appears on a typical ROC implementation."""
    counts = Counter(mutant.operator for mutant in _mutants(ROC))
    assert counts == {
        "metric/split-tie-groups": 1,
        "metric/flip-sort-order": 1,  # `argsort(-s)` → `argsort(s)`
        "metric/drop-origin": 1,  # both `np.r_[0.0, ...]` and the `inf` threshold, together
        "metric/wrong-class-count": 4,  # each of two denominators: the other class, or both
        "metric/swap-curve-axes": 4,  # the return, two unpackings, the trapezoid's arguments
        "metric/rectangle-rule": 2,  # right and left rectangles
        "metric/trapezoid-to-sum": 1,
    }


def test_every_mutant_of_the_roc_module_changes_the_auc():
    """No mutant is equivalent: on tied scores each one changes an AUC (or crashes)."""
    expected = _results(ROC)
    for mutant in _mutants(ROC):
        assert _results(mutant.apply(ROC)) != pytest.approx(expected), (mutant.operator, mutant.diff)


def test_tie_filter_in_sklearn_style_is_dropped_with_its_definitions():
    """`threshold_idxs` built from `distinct_value_indices` is dropped at every use, both definitions deleted."""
    source = textwrap.dedent(
        """
        import numpy as np

        def curve(y_true, y_score):
            distinct_value_indices = np.where(np.diff(y_score))[0]
            threshold_idxs = np.r_[distinct_value_indices, y_true.size - 1]
            tps = np.cumsum(y_true)[threshold_idxs]
            return tps, y_score[threshold_idxs]
        """
    )
    (mutant,) = mutated_sources(OPERATORS["metric/split-tie-groups"](), source)
    assert mutant == textwrap.dedent(
        """
        import numpy as np

        def curve(y_true, y_score):
            tps = np.cumsum(y_true)
            return tps, y_score
        """
    )


def test_rectangle_rule_keeps_needed_parentheses():
    """A halved product inside a larger expression keeps its parentheses once the `/ 2` is gone."""
    source = "def f(dx, y, c):\n    return c ** (dx * (y[1:] + y[:-1]) / 2).sum()\n"
    assert mutated_sources(OPERATORS["metric/rectangle-rule"](), source) == [
        "def f(dx, y, c):\n    return c ** (dx * y[1:]).sum()\n",
        "def f(dx, y, c):\n    return c ** (dx * y[:-1]).sum()\n",
    ]
    source = "def f(dx, y, c):\n    return c - ((dx * (y[1:] + y[:-1])).sum() / 2)\n"
    assert mutated_sources(OPERATORS["metric/rectangle-rule"](), source) == [
        "def f(dx, y, c):\n    return c - ((dx * y[1:]).sum())\n",
        "def f(dx, y, c):\n    return c - ((dx * y[:-1]).sum())\n",
    ]


def test_trapezoid_from_scipy_uses_the_module_numpy_alias():
    """A bare `trapezoid(y, x)` becomes a sum written with the module's own numpy alias."""
    source = "import numpy as onp\nfrom scipy.integrate import trapezoid\n\ndef f(x, y):\n    return trapezoid(y + 1, x)\n"
    assert mutated_sources(OPERATORS["metric/trapezoid-to-sum"](), source) == [
        "import numpy as onp\nfrom scipy.integrate import trapezoid\n\ndef f(x, y):\n"
        "    return onp.sum((y + 1)[1:] * onp.diff(x))\n"
    ]
    assert mutated_sources(OPERATORS["metric/trapezoid-to-sum"](), source.replace("import numpy as onp\n", "")) == []


def test_wrong_class_count_needs_the_other_count_in_scope():
    """`/ n_pos` is only swapped when `n_neg` exists there; a product of both counts is left alone."""
    lonely = "def f(hits, n_pos):\n    return hits / n_pos\n"
    assert mutated_sources(OPERATORS["metric/wrong-class-count"](), lonely) == []
    paired = "def f(hits, n_pos, n_neg):\n    hits /= n_pos\n    return hits\n"
    assert mutated_sources(OPERATORS["metric/wrong-class-count"](), paired) == [
        "def f(hits, n_pos, n_neg):\n    hits /= n_neg\n    return hits\n",
        "def f(hits, n_pos, n_neg):\n    hits /= (n_pos + n_neg)\n    return hits\n",
    ]


def test_sort_flips_keep_formatting_and_comments():
    """Dropping a reversal or a keyword keeps the comment and spacing of the rest of the line."""
    source = "import numpy as np\n\ndef f(s):\n    return np.argsort(s ,  kind='stable')[::-1]  # desc\n"
    assert sorted(mutated_sources(OPERATORS["metric/flip-sort-order"](), source)) == [
        "import numpy as np\n\ndef f(s):\n    return np.argsort(s ,  kind='stable')  # desc\n",
    ]
    assert mutated_sources(OPERATORS["metric/unstable-sort"](), source) == [
        "import numpy as np\n\ndef f(s):\n    return np.argsort(s)[::-1]  # desc\n",
    ]


UNUSUAL = textwrap.dedent(
    """
    import numpy as np


    async def curves(y, *scores, xp=np, **kw):
        out = {}
        for s in scores:
            if (n := s.size) < 2: continue
            order = xp.argsort(s, stable=True, descending=True)
            tps, fps = xp.cumsum(y[order]), xp.cumsum(1 - y[order])
            match kw:
                case {"origin": True}:
                    tps, fps = xp.concat((xp.asarray([0]), tps)), xp.concat((xp.asarray([0]), fps))
                case _:
                    pass
            out[n] = lambda tps=tps, fps=fps: (fps / fps[-1], tps / tps[-1])
        return out, np.trapezoid(*scores), np.r_[0, *scores]
    """
)


def test_unusual_syntax_does_not_crash_and_every_mutant_compiles():
    """Lambdas, star-args, walrus, match, tuple assignments and array-API calls give valid mutants only."""
    mutants = _mutants(UNUSUAL)
    assert mutants, "expected some sites in the unusual snippet"
    for mutant in mutants:
        compile(mutant.apply(UNUSUAL), "unusual.py", "exec")


def test_a_label_set_compared_for_equality_becomes_a_count_of_two():
    """`set(y) == {0, 1}` (both labels present) becomes `len(set(y)) == 2`, inside any expression."""
    before = "def f(y):\n    ok = set(y) == {0, 1} and len(y) > 1\n    return ok\n"
    assert mutated_sources(metric.LabelSetToCount(), before) == [
        "def f(y):\n    ok = len(set(y)) == 2 and len(y) > 1\n    return ok\n"
    ]


def test_a_label_check_standing_where_parentheses_are_needed_gets_them():
    """`2 * np.isin(y, (0, 1)).all()` keeps its meaning: the count is parenthesised."""
    before = "import numpy as np\n\ndef f(y):\n    return 2 * np.isin(y, (0, 1)).all()\n"
    assert mutated_sources(metric.LabelSetToCount(), before) == [
        "import numpy as np\n\ndef f(y):\n    return 2 * (len(np.unique(y)) <= 2)\n"
    ]


def test_label_sets_that_are_not_literals_or_not_numpy_are_left_alone():
    """A set of names, `isin` of a module not an array library, `.all(axis=0)` of a 2-D mask are no label checks."""
    before = (
        "import numpy as np\n\ndef f(y, a, b, Y):\n"
        "    return set(y) <= {a, b}, sets.isin(y, (0, 1)).all(), np.isin(Y, (0, 1)).all(axis=0)\n"
    )
    assert mutated_sources(metric.LabelSetToCount(), before) == []
