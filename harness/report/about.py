"""Who made the report: bugsmith's name, version and homepage, as every format states them."""

from __future__ import annotations

from importlib import metadata

NAME = "bugsmith"


def version() -> str:
    try:
        return metadata.version(NAME)
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def homepage() -> str | None:
    """The homepage the package's metadata declares ([project.urls]), if any: never a guess."""
    try:
        urls = metadata.metadata(NAME).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "source", "repository") and url.strip():
            return url.strip()
    return None
