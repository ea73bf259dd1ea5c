"""The words an identifier is made of, which is how mutators guess what a name holds.

`max_new_tokens` and `maxNewTokens` both read as {max, new, tokens}: a budget, a queue, a score
or a bound is recognised by its words, never by one exact spelling of ours.
"""

from __future__ import annotations

import re

_WORD_SPLIT = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])")


def words(identifier: str) -> set[str]:
    """`max_new_tokens` → {max, new, tokens}; `maxTokens` → {max, tokens}."""
    return {word.lower() for word in _WORD_SPLIT.split(identifier) if word}
