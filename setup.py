"""The package list, found rather than typed: pyproject.toml holds the project's metadata, this
file only maps the repository's folders into the one import name `bugsmith` and lists every
folder under them that holds a file (setuptools treats a data folder as a package too), so a new
problem under reference/ or a new room of the harness ships without another edit."""

from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
# import name -> folder: the folders the project is known by, one package once installed.
PACKAGE_DIR = {"bugsmith": "bugsmith", "bugsmith.harness": "harness", "bugsmith.mutators": "mutators",
               "bugsmith.reference": "reference"}


def _kept(path: Path, top: Path) -> bool:
    return not any(part.startswith((".", "__pycache__")) or part.endswith(".egg-info")
                   for part in path.relative_to(top).parts)


def packages(root: Path = HERE) -> list[str]:
    """Every package of the wheel: each mapped folder and each folder below it with a file."""
    found = set()
    for name, folder in PACKAGE_DIR.items():
        top = root / folder
        for path in top.rglob("*"):
            if path.is_file() and _kept(path, top):
                found.add(".".join((name, *path.parent.relative_to(top).parts)))
    return sorted(found)


if __name__ == "__main__":
    setup(package_dir=PACKAGE_DIR, packages=packages())
