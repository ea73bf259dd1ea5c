"""The package's declared layout matches the repository, and the corpus runs outside
site-packages."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from bugsmith.harness import config, corpus

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"bugsmith": "bugsmith", "harness": "bugsmith.harness", "mutators": "bugsmith.mutators",
           "reference": "bugsmith.reference"}


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _setup_py():
    spec = importlib.util.spec_from_file_location("bugsmith_setup", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its setup() runs only as a script
    return module


def _folders_with_files(root: Path) -> set[str]:
    found = set()
    for folder, name in FOLDERS.items():
        for path in (root / folder).rglob("*"):
            relative = path.relative_to(root / folder)
            if path.is_file() and not any(p.startswith((".", "__pycache__")) for p in relative.parts):
                found.add(".".join((name, *relative.parent.parts)))
    return found


def test_every_package_folder_is_declared_and_mapped() -> None:
    """setup.py finds exactly the folders that hold code or package data, each under
    `bugsmith.`, so a wheel carries every module (a forgotten one only fails once installed)."""
    setup = _setup_py()
    assert setup.PACKAGE_DIR == {name: folder for folder, name in FOLDERS.items()}
    assert set(setup.packages()) == _folders_with_files(REPO)
    assert "packages" not in pyproject()["tool"]["setuptools"]  # one list: the one setup.py finds


def test_the_checkout_declares_the_corpus_table() -> None:
    """The checkout's [tool.bugsmith] is the corpus's table (plus its reports folder), so a
    run from the checkout and from an installed copy test the same thing."""
    table = dict(pyproject()["tool"]["bugsmith"])
    assert table.pop("reports") == "reports"
    assert table == corpus.TABLE
    assert (REPO / corpus.TABLE["equivalents"]).is_file()


def test_the_installed_corpus_is_copied_once_per_content(tmp_path: Path) -> None:
    """An installed corpus runs from a copy in the cache that imports as `reference`, with its
    table; the same content gives the same folder (so its store resumes), new content a new one."""
    package = tmp_path / "site-packages" / "bugsmith" / "reference"
    (package / "toy" / "tests").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "equivalent-mutants.toml").write_text("")
    (package / "toy" / "__init__.py").write_text("def f():\n    return 1\n")
    (package / "toy" / "tests" / "test_toy.py").write_text("from reference.toy import f\n")
    cache = tmp_path / "cache"
    first = corpus.materialise(package, cache)
    assert first.is_relative_to(cache)
    assert (first / "reference" / "toy" / "tests" / "test_toy.py").is_file()
    options = config.from_table(first, config.read_table(first / "pyproject.toml") or {})
    assert options.paths == ("reference",) and options.equivalents == corpus.TABLE["equivalents"]
    assert corpus.materialise(package, cache) == first
    (package / "toy" / "__init__.py").write_text("def f():\n    return 2\n")
    assert corpus.materialise(package, cache) != first


def test_an_unwritable_cache_is_a_one_line_error(tmp_path: Path) -> None:
    """A cache folder that cannot be written is a configuration error that names the way out."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(config.ConfigError, match="BUGSMITH_CACHE"):
        corpus.materialise(corpus.package_folder(), blocker / "cache")


def test_from_the_checkout_the_corpus_is_the_checkout() -> None:
    """Run from this checkout, the built-in corpus is the checkout itself (its reports/ and
    generated/ folders), not a copy."""
    assert config.builtin_root() == REPO
