"""Source files as Python reads them: BOM and PEP 263 encodings are read (and a mutant goes back
to bytes in the file's own encoding); a file bugsmith cannot handle is skipped with a warning
or is a one-line error naming it, never a traceback (issue 14, "Bad input")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bugsmith.errors import SourceError
from bugsmith.harness.cli import cli
from bugsmith.mutators import registry
from bugsmith.mutators.engine import enumerate_mutants
from bugsmith.mutators.source_file import encode_source, read_source, source_encoding

BOM = b"\xef\xbb\xbfdef g(x):\n    return x + 1\n"
LATIN1 = "# -*- coding: latin-1 -*-\ndef h(x):\n    return 'caf\xe9' if x > 0 else 'no'\n".encode("latin-1")
DEEP = "def f(a):\n    return " + " + ".join(f"a*{i}" for i in range(200)) + "\n"
TESTS = ("from pkg.bom import g\nfrom pkg.lat import h\n\n\n"
         "def test_g():\n    assert g(1) == 2\n\n\n"
         "def test_h():\n    assert h(1) == 'caf\\xe9' and h(0) == 'no'\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "bom.py").write_bytes(BOM)
    (root / "pkg" / "lat.py").write_bytes(LATIN1)
    (root / "tests" / "test_pkg.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\njobs = 1\n'
                                         'families = ["classic"]\n')
    return root


def invoke(root: Path, *args: str):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return CliRunner().invoke(cli, list(args))


def test_bom_and_pep263_files_are_read_and_mutants_keep_their_encoding(project: Path) -> None:
    """A UTF-8 BOM and a latin-1 cookie are valid Python (both used to be refused); a mutant
    encoded back keeps the BOM and the latin-1 bytes, and decodes to the mutated text."""
    files = [project / "pkg" / "bom.py", project / "pkg" / "lat.py"]
    found = enumerate_mutants(files, root=project, mutators=registry.select(("classic",)))
    assert {m.file for m in found.mutants} == {"pkg/bom.py", "pkg/lat.py"}
    assert read_source(files[1]).splitlines()[2] == "    return 'caf\xe9' if x > 0 else 'no'"
    for path in files:
        text, encoding = read_source(path), source_encoding(path)
        assert encode_source(text, encoding) == path.read_bytes()
        for mutant in (m for m in found.mutants if m.file == f"pkg/{path.name}"):
            mutated = mutant.apply(text)
            written = encode_source(mutated, encoding)
            assert written.startswith(b"\xef\xbb\xbf") == (path.name == "bom.py")
            assert ("caf\xe9" in mutated) == (b"caf\xe9" in written)  # one latin-1 byte, not two
            compile(written, str(path), "exec")  # Python reads the bytes as the mutant


@pytest.mark.slow
def test_a_run_kills_mutants_of_bom_and_latin1_files(project: Path) -> None:
    """The whole run works on such files: the baseline passes (the latin-1 literal is 'café')
    and every mutant is killed."""
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report", "--fail-under", "100"],
                          cwd=project, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "pkg/bom.py" in done.stdout and "pkg/lat.py" in done.stdout


@pytest.mark.slow
def test_a_file_that_is_not_utf8_is_one_line_naming_it(project: Path) -> None:
    """A non-UTF-8 file without a cookie is an error naming the file and the line (exit 2),
    in `mutants` and in `run` (where it used to be a UnicodeDecodeError)."""
    (project / "pkg" / "bad.py").write_bytes(b"def q(x):\n    return 'caf\xe9' if x else 1\n")
    listed = invoke(project, "mutants")
    assert isinstance(listed.exception, SourceError) and listed.exception.exit_code == 2
    assert str(listed.exception).startswith("pkg/bad.py:2: cannot read: not valid utf-8")
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report"], cwd=project,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "pkg/bad.py:2: cannot read: not valid utf-8" in errors[0]


def test_an_unknown_encoding_cookie_is_one_line_naming_the_file(project: Path) -> None:
    """`# coding: nonesuch` is what Python itself refuses: a one-line error naming the file."""
    (project / "pkg" / "bad.py").write_text("# coding: nonesuch\nx = 1\n")
    listed = invoke(project, "mutants")
    assert isinstance(listed.exception, SourceError)
    assert str(listed.exception) == "pkg/bad.py: cannot read: unknown encoding: nonesuch"


def test_an_expression_too_deep_for_libcst_skips_its_file_with_a_warning(project: Path) -> None:
    """`return a*0 + ... + a*199` compiles in CPython but is too deep for libcst to visit: the
    file is skipped with a warning naming it and the others are still mutated (it used to be
    a RecursionError)."""
    (project / "pkg" / "deep.py").write_text(DEEP)
    (project / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\n')
    listed = invoke(project, "mutants")  # every family: one of them visits too deep
    assert listed.exit_code == 0, listed.output
    assert "bugsmith: warning: skipped pkg/deep.py: too deeply nested for libcst to visit" in listed.output
    assert "  pkg/bom.py:" in listed.output and "  pkg/deep.py:" not in listed.output


def test_a_symlink_out_of_the_project_is_skipped_with_a_warning(project: Path, tmp_path: Path) -> None:
    """A symlinked .py that leads outside the project is not the project's code: skipped with a
    warning (it used to abort the run with `ValueError ... is not in the subpath`); a link to a
    file inside the project is that file, mutated once."""
    (tmp_path / "outside.py").write_text("def z(x):\n    return x + 1\n")
    (project / "pkg" / "linked.py").symlink_to(tmp_path / "outside.py")
    (project / "pkg" / "again.py").symlink_to(project / "pkg" / "bom.py")
    listed = invoke(project, "mutants", "--json")
    assert listed.exit_code == 0, listed.output
    assert f"bugsmith: warning: skipped pkg/linked.py: a symlink to {tmp_path / 'outside.py'}" in listed.output
    assert "outside.py" not in "".join(line for line in listed.output.splitlines() if line.startswith("{"))
    assert "mutants in 3 files" in listed.output and "again.py" not in listed.output  # __init__, bom, lat


@pytest.mark.slow
def test_a_run_says_which_files_it_skipped(project: Path, tmp_path: Path) -> None:
    """`run` goes on without the skipped files and names each in a warning on stderr."""
    (tmp_path / "outside.py").write_text("def z(x):\n    return x + 1\n")
    (project / "pkg" / "linked.py").symlink_to(tmp_path / "outside.py")
    (project / "pkg" / "deep.py").write_text(DEEP)
    (project / "pyproject.toml").write_text('[tool.bugsmith]\npaths = ["pkg"]\ntests = ["tests"]\njobs = 1\n')
    done = subprocess.run([sys.executable, "-m", "bugsmith", "run", "--no-report"], cwd=project,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "bugsmith: warning: skipped pkg/linked.py: a symlink to" in done.stderr
    assert "bugsmith: warning: skipped pkg/deep.py: too deeply nested" in done.stderr
    assert "Traceback" not in done.stderr
