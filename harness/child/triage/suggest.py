"""Write the missing test: call the function on the witness and assert the original's result.

Built inside the child that found the witness (it holds the live values), verified later in two
more children (harness.child.triage.probe.check): it must pass on the original code and fail on the
mutant before anyone sees it. A witness with no faithful source form gets no suggested test.
"""

from __future__ import annotations

import builtins
import re
from typing import Any

from bugsmith.harness.child.triage.values import ATOL, RTOL, NotLiteral, literal, np, pd

_TOLERANCE = f"rtol={RTOL:g}, atol={ATOL:g}"
_MODULES = {"math": "import math", "np": "import numpy as np", "pd": "import pandas as pd",
            "pytest": "import pytest"}


def test_name(callee: str, mutant_id: str) -> str:
    stem = re.sub(r"\W+", "_", callee).strip("_").lower()
    return f"test_{stem}_catches_{re.sub(r'[^0-9A-Za-z]', '', mutant_id)[:10].lower()}"


def suggested_test(*, module: str, callee: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                   expected: Any, mutant_id: str, operator: str,
                   raises: tuple[str, str] | None = None, constructs: bool = False) -> str:
    """Source of a pytest test module; raises NotLiteral when the witness cannot be written.

    `raises` is the (exception type, message) with which the original refuses the input;
    `constructs` says that `callee` is a class and `expected` the object it builds.
    """
    head = callee.partition(".")[0]
    arguments = [literal(value) for value in args]
    arguments += [f"{name}={literal(value)}" for name, value in kwargs.items()]
    name = test_name(callee, mutant_id)
    invocation = f"{callee}({', '.join(arguments)})"
    if raises is None and constructs:
        body = _construction(invocation, expected)
        promise = "build this object"
    elif raises is None:
        body = [f"    result = {invocation}", f"    expected = {literal(expected)}",
                *assertions("result", "expected", expected)]
        promise = "return the correct result on this input"
    else:
        body = [f"    with pytest.raises({_exception(raises[0])}, match={_pattern(raises[1])}):",
                f"        {invocation}"]
        promise = f"refuse this input with a {raises[0]}"
    doc = f'    """{callee} must {promise}; mutant {mutant_id} ({operator}) does not."""'
    code = "\n".join([f"def {name}():", doc, *body]) + "\n"
    imports = [line for alias, line in _MODULES.items() if re.search(rf"\b{alias}\.", code)]
    header = "\n".join(imports) + ("\n\n" if imports else "") + f"from {module} import {head}\n"
    return f"{header}\n\n{code}"


def _construction(invocation: str, built: Any) -> list[str]:
    """Build the object and pin its attributes when they can be written, else only that it builds."""
    try:
        return [f"    result = {invocation}", f"    assert vars(result) == {literal(vars(built))}"]
    except (NotLiteral, TypeError):
        return [f"    {invocation}  # must not raise"]


def _exception(name: str) -> str:
    if not isinstance(getattr(builtins, name, None), type) or not issubclass(getattr(builtins, name), Exception):
        raise NotLiteral(f"{name} is not a built-in exception")
    return name


def _pattern(message: str) -> str:
    """A `match=` pattern for the message's first line (re.search: a prefix is enough)."""
    first = message.splitlines()[0][:120] if message else ""
    return repr(re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", first))


def assertions(got: str, want: str, expected: Any, depth: int = 0) -> list[str]:
    """Lines that assert `got` equals `want` as `harness.child.triage.values.same` would judge."""
    pad = "    "
    if depth > 3:
        raise NotLiteral("result nested too deeply for a readable assertion")
    if isinstance(expected, float | np.floating):
        return [f"{pad}assert {got} == pytest.approx({want}, rel={RTOL:g}, abs={ATOL:g}, nan_ok=True)"]
    if isinstance(expected, np.ndarray):
        check = (f"np.testing.assert_allclose({got}, {want}, {_TOLERANCE})" if expected.dtype.kind in "fc"
                 else f"np.testing.assert_array_equal({got}, {want})")
        return [f"{pad}assert np.shape({got}) == {expected.shape!r}", f"{pad}{check}"]
    if isinstance(expected, pd.DataFrame):
        return [f"{pad}pd.testing.assert_frame_equal({got}, {want}, check_exact=False, {_TOLERANCE})"]
    if isinstance(expected, pd.Series):
        return [f"{pad}pd.testing.assert_series_equal({got}, {want}, check_exact=False, {_TOLERANCE})"]
    if isinstance(expected, tuple | list) and any(
            isinstance(item, float | np.floating | np.ndarray | pd.DataFrame | pd.Series | tuple | list)
            for item in expected):
        lines = [f"{pad}assert len({got}) == {len(expected)}"]
        for position, item in enumerate(expected):
            lines += assertions(f"{got}[{position}]", f"{want}[{position}]", item, depth + 1)
        return lines
    return [f"{pad}assert {got} == {want}"]
