"""What of an interview bank must never reach a candidate: its sentences, as the leak checks fold them."""

from __future__ import annotations

import re

from bugsmith.harness.exercises.sources.interview_bank import InterviewBank

MIN_WORDS = 6  # shorter phrases ("the head of the queue") may well appear in a statement


def phrases(bank: InterviewBank) -> set[str]:
    """Every string of the bank, and every sentence or clause of it, of at least MIN_WORDS words,
    folded as `folded` folds a candidate's text."""
    found = set()
    for text in bank.texts():
        for piece in (text, *re.split(r"(?<=[.;:?!])\s+", text)):
            words = piece.strip().rstrip(".;:?!").split()
            if len(words) >= MIN_WORDS:
                found.add(" ".join(words).lower())
    return found


def folded(text: str) -> str:
    """`text` lower-cased with every run of whitespace one space (Markdown rewraps lines)."""
    return " ".join(text.split()).lower()
