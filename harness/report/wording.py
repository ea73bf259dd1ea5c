"""How numbers and statuses read, the same in every format."""

from __future__ import annotations


def seconds(value: float) -> str:
    """A duration a person reads at a glance: "850 ms", "12.3 s", "4 min 05 s"."""
    if value < 1:
        return f"{value * 1000:.0f} ms"
    if value < 60:
        return f"{value:.1f} s"
    minutes, rest = divmod(round(value), 60)
    return f"{minutes} min {rest:02d} s"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def slug(text: str) -> str:
    """A status or family as a CSS class and URL value: "no coverage" -> "no-coverage"."""
    return text.replace(" ", "-")


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
