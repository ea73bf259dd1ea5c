"""The one mapping between a built-in problem's project names (`reference/auc/...`) and a handout's
(`auc/...`): paths, test ids, imports and the statement's module path, there and back."""

from __future__ import annotations

import ast
import json

import pytest

from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.harness.exercises.sources.handout_names import KEEP, corpus_names, pack_names

AUC = corpus_names("auc")

TEST = '''"""Examples."""
from __future__ import annotations

import os, reference.auc.strategies as s
from reference.auc import roc_auc_score, roc_curve
from reference.auc.strategies import (binary_problems,
                                      call_strategies)
from . import helpers


def test_it(reference):
    assert reference.auc == 1  # a fixture named like the level is left alone
'''


def test_paths_and_test_ids_lose_the_level_and_get_it_back():
    assert AUC.path("reference/auc/auc.py") == "auc/auc.py" and AUC.project_path("auc/auc.py") == "reference/auc/auc.py"
    assert AUC.path("pytest.ini") == "pytest.ini" and AUC.project_path("conftest.py") == "conftest.py"
    assert AUC.test_id("reference/auc/tests/test_auc_visible.py::test_ties[a::b]") == (
        "auc/tests/test_auc_visible.py::test_ties[a::b]")
    assert AUC.project_test_id("auc/tests/t.py::x") == "reference/auc/tests/t.py::x"
    assert KEEP.path("reference/auc/auc.py") == "reference/auc/auc.py"


def test_imports_of_the_level_are_rewritten_and_nothing_else():
    """Only import statements change; the rest of the file is kept byte for byte, and the rewrite
    is undone by `project_text`."""
    handed = AUC.text("reference/auc/tests/test_auc_visible.py", TEST)
    assert handed == (TEST.replace("reference.auc.strategies as s", "auc.strategies as s")
                      .replace("from reference.auc import", "from auc import")
                      .replace("from reference.auc.strategies import", "from auc.strategies import"))
    assert AUC.project_text("auc/tests/test_auc_visible.py", handed) == TEST


def test_every_way_of_importing_the_package_binds_the_same_names_back():
    """`import auc` binds `auc`, so it comes back as `from reference import auc`; a submodule imported
    without a name is still loaded."""
    back = AUC.project_text("auc/auc.py", "import auc\nimport auc.strategies\nimport auc as a\nfrom auc import f\n")
    bound = [sorted(a.asname or a.name.split(".")[0] for a in node.names) for node in ast.parse(back).body]
    assert back.splitlines()[0] == "from reference import auc"
    assert "import reference.auc.strategies" in back and bound[-2:] == [["a"], ["f"]]
    assert AUC.text("x.py", "from reference import auc, pr_curve as p\n") == "import auc, pr_curve as p\n"
    assert AUC.project_text("auc/x.py", "from . import auc\nx = 1\n") == "from . import auc\nx = 1\n"


def test_a_bare_import_of_the_level_rewrites_its_attribute_chains():
    text = "import reference.auc\n\nvalue = reference.auc.roc_curve\n"
    assert AUC.text("t.py", text) == "import auc\n\nvalue = auc.roc_curve\n"


def test_the_statement_names_the_module_and_its_folder_without_the_level():
    text = "## API (`from reference.auc import roc_curve`)\n\nThe code in `reference/auc/` has a reference count.\n"
    assert AUC.text("reference/auc/problem.md", text) == (
        "## API (`from auc import roc_curve`)\n\nThe code in `auc/` has a reference count.\n")
    assert AUC.markdown("bugsmith.reference.auc and reference/pr_curve/") == "bugsmith.reference.auc and reference/pr_curve/"


def test_a_tree_drops_the_levels_init_and_refuses_two_files_on_one_name():
    tree = AUC.handout_files({"reference/__init__.py": "", "reference/conftest.py": "c", "reference/auc/a.py": "",
                              "pytest.ini": "p"})
    assert tree == {"conftest.py": "c", "auc/a.py": "", "pytest.ini": "p"}
    with pytest.raises(ExerciseError, match="taken by another file"):
        AUC.handout_files({"conftest.py": "", "reference/conftest.py": ""})
    assert AUC.project_files({"auc/a.py": "from auc import b\n"}) == {"reference/auc/a.py": "from reference.auc import b\n"}


def test_a_pack_says_which_names_it_was_handed_out_with(tmp_path):
    """A corpus pack: renamed; one exported before the rename (handout/reference/) or a project's pack
    (layout.json): as they are."""
    renamed, old, project = (tmp_path / name for name in ("renamed", "old", "project"))
    (renamed / "handout" / "auc").mkdir(parents=True)
    (old / "handout" / "reference" / "auc").mkdir(parents=True)
    project.mkdir()
    (project / "layout.json").write_text(json.dumps({"format": "bugsmith-layout/1"}))
    assert pack_names(renamed, "auc") == AUC
    assert pack_names(old, "auc") == KEEP and pack_names(project, "auc") == KEEP
