"""Paths into bugsmith's private copy of the project, in a drafted test, made the project's own.

Triage runs the suite in the copy (`.bugsmith/tree/`), so the arguments a suite computes from
`__file__` name files there: `_exists('<root>/.bugsmith/tree/test/data/x.yaml')`, and so do the
error messages that quote them. Written for the user as they are, such tests would read
bugsmith's copy. Each text that names the copy (a path, or a path inside a `match=` pattern)
becomes an f-string on `PROJECT_ROOT`, which the written file computes from its own place: in
the user's tree their project, in the copy that checks the file the copy's.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT_NAME = "PROJECT_ROOT"
_COPY = r"/tree(?:-\d+-[0-9a-f]+)?"  # harness.executors.project_copy: `tree`, or `tree-<pid>-<hex>`
_REGEX_SPECIAL = r"([.^$*+?{}\[\]\\|()])"  # what harness.child.triage.suggest escapes in a pattern


def names_the_copy(source: str, root: Path) -> bool:
    return str(root / ".bugsmith") in source


def relocated(source: str, root: Path, depth: int) -> str:
    """`source` with every text that names the copy of `root` spelt from `PROJECT_ROOT`, and the
    lines that define it (the written file sits `depth` folders below the project's root)."""
    inside = str(root / ".bugsmith")
    found = re.compile(f"(?P<raw>{re.escape(inside)}{_COPY})|(?P<escaped>{re.escape(_escaped(inside))}{_COPY})")
    relocate = _Relocate(found)
    tree = relocate.visit(ast.parse(source))
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    rest = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    needed = ast.parse("import re\n" * relocate.escapes + "from pathlib import Path\n"
                       f"{ROOT_NAME} = Path(__file__).resolve().parents[{depth}]\n")
    tree.body = [*imports, *needed.body, *rest]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _escaped(text: str) -> str:
    return re.sub(_REGEX_SPECIAL, r"\\\1", text)


class _Relocate(ast.NodeTransformer):
    """Each string constant that names the copy becomes an f-string on the project's root."""

    def __init__(self, found: re.Pattern[str]) -> None:
        self.found = found
        self.escapes = False  # whether a pattern needed `re.escape`

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if not isinstance(node.value, str) or not self.found.search(node.value):
            return node
        parts: list[ast.expr] = []
        position = 0
        for match in self.found.finditer(node.value):
            if match.start() > position:
                parts.append(ast.Constant(node.value[position:match.start()]))
            root: ast.expr = ast.Name(ROOT_NAME, ast.Load())
            if match.group("escaped") is not None:  # inside a `match=` pattern: escaped as the rest is
                self.escapes = True
                text = ast.Call(func=ast.Name("str", ast.Load()), args=[root], keywords=[])
                root = ast.Call(func=ast.Attribute(ast.Name("re", ast.Load()), "escape", ast.Load()), args=[text],
                                keywords=[])
            parts.append(ast.FormattedValue(root, -1, None))
            position = match.end()
        if position < len(node.value):
            parts.append(ast.Constant(node.value[position:]))
        return ast.copy_location(ast.JoinedStr(parts), node)
