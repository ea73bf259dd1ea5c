"""The tokenizer-based highlighter: colours, escaping, line numbering and site marks."""

from __future__ import annotations

import re

from bugsmith.harness.report.highlight import highlight, source_lines


def _text(fragment: str) -> str:
    """The visible text of a highlighted line (tags dropped, entities decoded)."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_tokens_get_their_classes() -> None:
    """Keywords, names being defined, constants, builtins, strings, numbers and comments are told apart."""
    (line,) = highlight("def f(x): return len(x) + 1 or None  # why\n")
    assert '<span class="k">def</span> <span class="d">f</span>' in line
    assert '<span class="b">len</span>' in line
    assert '<span class="n">1</span>' in line
    assert '<span class="c">None</span>' in line
    assert '<span class="m"># why</span>' in line


def test_text_is_escaped_and_preserved() -> None:
    """Every character of the source comes back, with markup characters escaped."""
    source = 'x = "</script><b>&amp;"  # <i>\ny = a < b & c\n'
    lines = highlight(source)
    assert "<b>" not in "".join(lines) and "</script>" not in "".join(lines)
    assert [_text(line) for line in lines] == source.splitlines()


def test_multiline_string_is_coloured_on_every_line() -> None:
    """A triple-quoted string spanning lines is a string on each of its lines, and only there."""
    lines = highlight('s = """one\ntwo\nthree"""\nz = 1\n')
    assert lines[1] == '<span class="s">two</span>'
    assert lines[2] == '<span class="s">three&#34;&#34;&#34;</span>'
    assert lines[3].startswith("z = ")


def test_lines_are_numbered_as_python_numbers_them() -> None:
    """A form feed does not start a line (str.splitlines would say it does), and CRLF is one break."""
    source = "a = 1\r\n\x0cb = 2\nc = 3"
    assert source_lines(source) == ["a = 1", "\x0cb = 2", "c = 3"]
    assert len(highlight(source)) == 3


def test_attribute_named_like_a_builtin_is_not_a_builtin() -> None:
    """`x.len` is an attribute, not the builtin `len`."""
    (line,) = highlight("y = x.len\n")
    assert 'class="b"' not in line


def test_matrix_multiplication_is_not_a_decorator() -> None:
    """`a @ b` is an operator; only an `@` opening a line starts a decorator."""
    lines = highlight("@cache\ndef f(a, b):\n    return a @ b\n")
    assert lines[0] == '<span class="a">@cache</span>'
    assert 'class="a"' not in lines[2]


def test_sites_are_marked_over_tokens() -> None:
    """A marked range gets its class even where it splits a token's span."""
    (line,) = highlight("if x <= 10:\n", {1: [(5, 7, "u u-survived")]})
    assert '<span class="u u-survived">&lt;=</span>' in line
    (line,) = highlight("n = 123\n", {1: [(5, 6, "u")]})
    assert '<span class="n">1</span><span class="n u">2</span><span class="n">3</span>' in line


def test_broken_source_is_still_shown() -> None:
    """Source that does not tokenize is shown as plain text instead of failing the report."""
    source = 'x = 1\ns = """never closed\n'
    assert [_text(line) for line in highlight(source)] == source.splitlines()
