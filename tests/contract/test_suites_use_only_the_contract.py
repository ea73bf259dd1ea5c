"""The reference suites check the contract and only the contract, read from their source.

No test pins an error message problem.md does not state, no test reads a caught exception's
message, and the tests and their strategies import from the
problem only the names its problem.md exports. A correct rewrite (test_rewrites.py) proves the
same on one implementation; these checks hold for every implementation.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from contract_tables import REPO, flat, problems, statement


def contract_names(problem: str) -> set[str]:
    found = re.search(rf"from reference\.{problem} import ([\w, ]+)", statement(problem))
    assert found, f"{problem}: problem.md states no `from reference.{problem} import ...`"
    return {name.strip() for name in found.group(1).split(",")}


def kit_files(problem: str) -> list[Path]:
    folder = REPO / "reference" / problem
    return [folder / "strategies.py", *sorted((folder / "tests").glob("*.py"))]


def _is_raises(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "raises" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "pytest")


def stated_messages(problem: str) -> set[str]:
    """The texts problem.md gives literally, in backticks: where an exact message is part of the
    contract, problem.md shows it so, and only then may a test `match=` it. Words that merely
    occur in the statement (say "features" in `max_features`) are not a promised message."""
    return {flat(span) for span in re.findall(r"`([^`]+)`", statement(problem))}


def message_checks(source: str, stated: set[str]) -> list[str]:
    """Every place that checks words of an exception that are not a `stated` message."""
    tree = ast.parse(source)
    found = []
    caught: set[str] = set()  # names bound by `with pytest.raises(...) as name`
    for node in ast.walk(tree):
        if isinstance(node, ast.withitem) and _is_raises(node.context_expr) \
                and isinstance(node.optional_vars, ast.Name):
            caught.add(node.optional_vars.id)
        if _is_raises(node):
            for keyword in node.keywords:
                if keyword.arg != "match":
                    continue
                words = keyword.value
                if not (isinstance(words, ast.Constant) and isinstance(words.value, str)
                        and flat(words.value) in stated):
                    found.append(f"line {node.lineno}: match={ast.unparse(words)}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in caught and node.attr != "type":
            found.append(f"line {node.lineno}: reads {ast.unparse(node)}")
    return found


def foreign_imports(source: str, problem: str, names: set[str], is_strategies: bool) -> list[str]:
    """Imports of anything from the problem but its contract's names (and, for the tests, the
    strategies, which are part of the test kit)."""
    found = []
    package = f"reference.{problem}"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith("reference")]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: only strategies.py sits in the package
                module = package + ("." + module if module else "")
            imported = {alias.name for alias in node.names}
            if module == package:
                extra = sorted(imported - names)
                found += [f"line {node.lineno}: {name} is not in the contract" for name in extra]
            elif module == f"{package}.strategies" and not is_strategies:
                continue
            elif module.startswith("reference"):
                found.append(f"line {node.lineno}: from {module} import ...")
    return found


@pytest.mark.parametrize("problem", problems())
def test_no_test_checks_an_unstated_message(problem: str) -> None:
    """`pytest.raises(E)` alone, or `match=` on a message problem.md states; nothing else."""
    stated = stated_messages(problem)
    for path in kit_files(problem):
        found = message_checks(path.read_text(encoding="utf-8"), stated)
        assert not found, f"{path.relative_to(REPO)}: {found}"


@pytest.mark.parametrize("problem", problems())
def test_the_test_kit_imports_only_the_contract(problem: str) -> None:
    """Tests and strategies import only what problem.md exports, so a rewrite that names its
    modules and helpers its own way still runs them."""
    names = contract_names(problem)
    for path in kit_files(problem):
        found = foreign_imports(path.read_text(encoding="utf-8"), problem, names,
                                is_strategies=path.name == "strategies.py")
        assert not found, f"{path.relative_to(REPO)}: {found}"


def test_the_checks_catch_what_they_look_for() -> None:
    """A pinned message, a read message and a private import are each reported."""
    source = (
        "import pytest\nfrom reference.auc import roc_curve, _column\nfrom reference.auc.auc import x\n"
        "def test_a():\n    with pytest.raises(ValueError, match='both classes'):\n        f()\n"
        "def test_b():\n    with pytest.raises(ValueError) as caught:\n        f()\n"
        "    assert 'x' in str(caught.value)\n"
        "def test_c():\n    with pytest.raises(ValueError, match='stated words'):\n        f()\n"
    )
    assert len(message_checks(source, {"stated words", "both"})) == 2
    assert len(foreign_imports(source, "auc", {"roc_curve"}, is_strategies=False)) == 2
