"""The one table of keyword traps and the four operators that read it (issue 40, item 2)."""

from __future__ import annotations

import textwrap

import pytest

from bugsmith.mutators import registry
from bugsmith.mutators.analysis.keyword_traps import TRAPS
from bugsmith.mutators.engine import mutants_of_source
from bugsmith.mutators.families.beyond.keywords import BeyondKeywordTrap
from bugsmith.mutators.families.metric.keywords import MetricKeywordTrap
from bugsmith.mutators.families.shape.keywords import ShapeKeywordTrap
from bugsmith.mutators.families.window.keywords import WindowKeywordTrap
from bugsmith.mutators.family import Family
from bugsmith.mutators.testing import mutated_sources

TRAP_OPERATORS = (ShapeKeywordTrap, WindowKeywordTrap, MetricKeywordTrap, BeyondKeywordTrap)
TRAP_NAMES = {cls.name for cls in TRAP_OPERATORS}

# One call of every row of the table, each written the way the row recognises it.
PANDAS_SAMPLE = textwrap.dedent(
    """
    import pandas as pd
    from scipy.stats import rankdata
    from sklearn.metrics import f1_score, roc_auc_score
    from sklearn.model_selection import train_test_split


    def features(df, w, lo, hi, bins):
        past = df["y"].shift(1).rolling(w).mean()
        spread = df["y"].rolling(w, min_periods=2).std()
        inside = df["y"].between(lo, hi)
        binned = pd.cut(df["y"], bins)
        ranks = df["s"].rank(method="average"), rankdata(df["s"], method="min")
        counts, distinct = df["k"].value_counts(), df["k"].nunique()
        return past, spread, inside, binned, ranks, counts, distinct, df.sample(5)


    def scores(X, y, p, s):
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        return f1_score(y, p), roc_auc_score(y, s, average="macro"), X_train
    """
)
NUMPY_SAMPLE = textwrap.dedent(
    """
    import numpy as np


    def statistics(x, p, edges, v, rng):
        spread = np.std(x) + x.var(axis=0)
        best = p.argmax(axis=1)
        where = np.searchsorted(edges, v), np.digitize(v, edges), np.linspace(0, 1, 5)
        draws = rng.choice(len(x), size=len(x)), np.random.choice(5, 3)
        return spread, best, where, draws
    """
)


def _trap_mutants(source: str) -> list:
    return list(mutants_of_source(source, file="m.py", module="m", mutators=[cls() for cls in TRAP_OPERATORS]).mutants)


def test_every_row_is_documented_and_owned_by_an_operator_of_its_family():
    """A row says why people get it wrong, and its family has the operator that makes it."""
    families = {cls.family for cls in TRAP_OPERATORS}
    for trap in TRAPS:
        assert trap.family in families, trap
        assert len(trap.reason.split()) >= 8 and "{" not in trap.reason and "}" not in trap.reason, trap
        assert trap.absent or trap.present, trap
        assert trap.apis and all("(" in api and api.endswith(")") for api in trap.apis), trap


def test_every_row_makes_a_mutant_on_the_samples():
    """Each row of the table is reached by a call written as its `apis` spell it."""
    made = {m.explanation for source in (PANDAS_SAMPLE, NUMPY_SAMPLE) for m in _trap_mutants(source)}
    for trap in TRAPS:
        assert any(text.endswith(trap.reason) for text in made), trap.keyword


@pytest.mark.parametrize("source", [PANDAS_SAMPLE, NUMPY_SAMPLE], ids=["pandas", "numpy"])
def test_no_trap_is_made_by_another_operator_and_no_other_mutant_changes(source):
    """The table holds only traps no other operator makes: the other operators' mutants keep
    their ids, and every keyword-trap mutant is code no other operator writes."""
    every = registry.select()
    others = [mutator for mutator in every if mutator.name not in TRAP_NAMES]
    with_traps = mutants_of_source(source, file="m.py", module="m", mutators=every).mutants
    without = mutants_of_source(source, file="m.py", module="m", mutators=others).mutants
    assert [m.id for m in with_traps if m.operator not in TRAP_NAMES] == [m.id for m in without]
    theirs = {m.apply(source) for m in without}
    mine = [m.apply(source) for m in _trap_mutants(source)]
    assert mine and not theirs & set(mine)


def test_ddof_is_added_with_the_value_the_library_does_not_default_to():
    """numpy's std gets `ddof=1`, a pandas object's `ddof=0`; an array taken out of pandas is numpy's."""
    pandas = "import pandas as pd\n\ndef f(s):\n    return s.std(), s.to_numpy().std(), s.values.var()\n"
    assert mutated_sources(MetricKeywordTrap(), pandas) == [
        "import pandas as pd\n\ndef f(s):\n    return s.std(ddof=0), s.to_numpy().std(), s.values.var()\n"
    ]
    numpy = "import numpy as np\n\ndef f(x):\n    return x.std(), np.nanvar(x)\n"
    assert mutated_sources(MetricKeywordTrap(), numpy) == [
        "import numpy as np\n\ndef f(x):\n    return x.std(ddof=1), np.nanvar(x)\n",
        "import numpy as np\n\ndef f(x):\n    return x.std(), np.nanvar(x, ddof=1)\n",
    ]


def test_a_keyword_is_added_in_the_layout_of_the_call():
    """One argument per line with a trailing comma: the new keyword gets its own line."""
    before = "import numpy as np\n\ndef f(x):\n    return np.max(\n        x,\n        axis=1,  # rows\n    )\n"
    assert mutated_sources(ShapeKeywordTrap(), before) == [
        "import numpy as np\n\ndef f(x):\n    return np.max(\n        x,\n        axis=1,  # rows\n"
        "        keepdims=True,\n    )\n"
    ]


def test_a_replaced_value_keeps_its_quotes_and_a_value_not_in_the_table_is_left():
    """`'average'` becomes `'min'` in single quotes; `method=m` (a name) and `average=None` are no sites."""
    before = (
        "import pandas as pd\nfrom sklearn import metrics\n\ndef f(s, m, y, p):\n"
        "    return s.rank(method='average'), s.rank(method=m), metrics.f1_score(y, p, average=None)\n"
    )
    assert mutated_sources(MetricKeywordTrap(), before) == [
        "import pandas as pd\nfrom sklearn import metrics\n\ndef f(s, m, y, p):\n"
        "    return s.rank(method='min'), s.rank(method=m), metrics.f1_score(y, p, average=None)\n"
    ]


def test_keywords_that_may_arrive_by_position_or_in_kwargs_are_not_added():
    """`np.searchsorted(a, v, 'left')` and `rolling(w, **opts)` may already set the keyword."""
    before = (
        "import numpy as np\nimport pandas as pd\n\ndef f(a, v, s, w, opts):\n"
        "    return np.searchsorted(a, v, 'left'), s.rolling(w, **opts).sum(), np.linspace(0, 1, 5, True)\n"
    )
    assert mutated_sources(WindowKeywordTrap(), before) == []


def test_the_explanation_is_the_rows_reason():
    """A mutant says what changed and why people get it wrong, in the row's words."""
    (mutant,) = _trap_mutants("import pandas as pd\n\ndef f(df):\n    return df.sample(3)\n")
    assert mutant.operator == "beyond/keyword-trap"
    assert mutant.explanation.startswith("`df.sample(3)` became `df.sample(3, replace=True)`: rows are drawn")


def test_each_family_operator_reads_only_its_own_rows():
    """The shape operator makes no window trap, and so on: a row belongs to one operator."""
    source = "import pandas as pd\n\ndef f(s, w):\n    return s.rolling(w).sum(), s.value_counts()\n"
    by_operator = {cls.name: mutated_sources(cls(), source) for cls in TRAP_OPERATORS}
    assert by_operator["shape/keyword-trap"] == [] and by_operator["metric/keyword-trap"] == []
    assert len(by_operator["window/keyword-trap"]) == 3 and len(by_operator["beyond/keyword-trap"]) == 3
    assert {cls.family for cls in TRAP_OPERATORS} == {Family.SHAPE, Family.WINDOW, Family.METRIC, Family.BEYOND}
