"""Where the built-in corpus (`bugsmith.reference`) runs as a project.

From a checkout, the checkout is the project: its `pyproject.toml` holds the corpus's table.
Installed, the package sits in site-packages, which a run must never write into (its store,
reports and exercises live in the project folder), so the corpus is copied once per version and
content into the user's cache and runs there. The copy imports as `reference`, exactly like the
folder a candidate gets, so the installed `bugsmith.reference` is never what the tests run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

from bugsmith.errors import ConfigError

# The corpus's [tool.bugsmith] table; the checkout's pyproject.toml states the same keys
# (tests/test_packaging.py holds them equal) plus where its reports go.
TABLE = {
    "paths": ["reference"],
    "tests": ["reference"],
    # The input strategies are part of each problem's test kit, not of its code.
    "exclude": ["**/strategies.py"],
    "equivalents": "reference/equivalent-mutants.toml",
}

_PYTEST = """\
[tool.pytest.ini_options]
testpaths = ["reference"]
addopts = "-p no:cacheprovider"
markers = [
    "hidden: held back from candidates; used to grade a fix",
    "slow: runs for seconds (real subprocesses, browsers, clusters)",
]
filterwarnings = ["error::pytest.PytestUnraisableExceptionWarning"]
"""


def package_folder() -> Path:
    """The folder of the installed (or checked-out) `bugsmith.reference` package."""
    from bugsmith import reference

    return Path(reference.__file__).resolve().parent


def corpus_root() -> Path:
    """The project folder in which the built-in corpus runs: the checkout, or a cached copy."""
    package = package_folder()
    checkout = package.parent
    if package.name == "reference" and _declares_corpus(checkout / "pyproject.toml"):
        return checkout
    return materialise(package, cache_folder())


def cache_folder() -> Path:
    """`$BUGSMITH_CACHE`, else `$XDG_CACHE_HOME/bugsmith`, else `~/.cache/bugsmith`."""
    if os.environ.get("BUGSMITH_CACHE"):
        return Path(os.environ["BUGSMITH_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bugsmith"


def cache_subfolder(name: str) -> Path | None:
    """`cache_folder()`/`name`, made if missing; None where it cannot be made (no cache then)."""
    folder = cache_folder() / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def materialise(package: Path, cache: Path) -> Path:
    """A project folder holding a copy of `package` as `reference/`, made once per content:
    a later run finds the same folder, so its store resumes and re-uses verdicts."""
    files = _corpus_files(package)
    digest = hashlib.sha256()
    for relative in files:
        digest.update(relative.encode() + b"\0" + (package / relative).read_bytes() + b"\0")
    target = cache / "corpus" / digest.hexdigest()[:16]
    if (target / "pyproject.toml").is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
        for relative in files:
            destination = staging / "reference" / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(package / relative, destination)
        (staging / "pyproject.toml").write_text(_pyproject(), encoding="utf-8")
        try:
            staging.rename(target)
        except OSError:  # another run made it first: theirs is the same content
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as error:
        raise ConfigError(f"cannot copy the built-in corpus to {target}: {error.strerror or error}"
                          " (set BUGSMITH_CACHE to a writable folder)") from None
    return target


def _corpus_files(package: Path) -> list[str]:
    return sorted(
        path.relative_to(package).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def _declares_corpus(pyproject: Path) -> bool:
    try:
        table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("bugsmith")
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(table, dict) and table.get("paths") == TABLE["paths"]


def _pyproject() -> str:
    lines = ["# The built-in corpus of bugsmith, copied here so that it runs outside site-packages.",
             "[tool.bugsmith]"]
    for key, value in TABLE.items():
        lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n\n" + _PYTEST


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
