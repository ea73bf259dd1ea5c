"""Enumerate the mutants of files: parse once, visit once, splice each proposal, keep the valid.

Every kept mutant parses and compiles; two mutants that compile to the same code are one
mutant; a mutant whose bytecode equals the original's is trivially equivalent and dropped
(both are counted, so a report can say how many).
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, WhitespaceInclusivePositionProvider

from bugsmith.errors import SourceError
from bugsmith.mutators.base import AnyMutator
from bugsmith.mutators.compiled import CompileUnits
from bugsmith.mutators.context import Context, overlaps
from bugsmith.mutators.enumeration import Enumeration, FileMutants, Skipped, module_name
from bugsmith.mutators.mutant import Mutant, line_starts, span_diff
from bugsmith.mutators.sites import Proposal, collect, pragma_lines
from bugsmith.mutators.source_file import read_source
from bugsmith.mutators.splice import Splice, splice


def parse(source: str, file: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(
            f"{file}:{error.raw_line}: cannot parse: {error.message}"
        ) from None


def mutant_id(file: str, operator: str, scope: str, original: str, mutated: str, ordinal: int) -> str:
    """Eight characters from stable facts of the site, never from a position in a list."""
    key = "\0".join((file, operator, scope, original, mutated, str(ordinal)))
    digest = hashlib.sha256(key.encode()).digest()
    return base64.b32encode(digest).decode()[:8].lower()


def _scope_and_function(ctx: Context, node: cst.CSTNode) -> tuple[str, str | None]:
    """Qualified name of the site's scope, and of the outermost function whose body holds it."""
    names: list[str] = []
    body_of: list[bool] = []  # for each name: is the site inside that def's body?
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
            names.append(ancestor.name.value)
            body_of.append(isinstance(ancestor, cst.FunctionDef) and child is ancestor.body)
        child = ancestor
    names.reverse()
    body_of.reverse()
    scope = ".".join(names)
    for depth, in_body in enumerate(body_of):
        if in_body:
            return scope, ".".join(names[: depth + 1])
    return scope, None


def mutants_of_source(
    source: str, *, file: str, module: str, mutators: Sequence[AnyMutator],
    lines: Collection[int] | None = None,
) -> FileMutants:
    """The mutants of `source`; with `lines`, only those whose edit starts on one of them (a
    repair search wants the edits of its most suspicious lines, and splicing the others is most
    of its cost). A mutant's id counts the same edits before it in its scope, so one kept from a
    narrowed run may carry another id than in a whole one when its twin edit is left out."""
    tree = parse(source, file)
    wanted = None if lines is None else sorted(lines)
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    ctx, proposals = collect(wrapper, mutators, wanted)
    pragmas = pragma_lines(source)
    positions = wrapper.resolve(WhitespaceInclusivePositionProvider)
    starts = line_starts(source)
    units = _compile_units(source, file, tree, positions, starts)
    seen: set[tuple[int, bytes]] = set()
    ordinals: Counter[tuple[str, ...]] = Counter()
    kept: list[Mutant] = []
    renders_back: dict[int, bool] = {}  # the nodes live as long as `tree`: their ids stay theirs
    equivalent = duplicates = invalid = 0
    for proposal in proposals:
        target = proposal.target
        position = positions[target]
        if wanted is not None and not overlaps(wanted, position.start.line, position.end.line):
            continue  # the edit cannot start on a wanted line: spare its splice
        result = splice(ctx, source, starts, target, position, proposal.replacement, renders_back)
        if result and _has_pragma(result, pragmas):
            continue
        if result and wanted is not None and not overlaps(wanted, result.span.line, result.span.line):
            continue
        if result is None:
            invalid += 1
            continue
        unit, digest, same = units.check(result.text, *result.span.offsets(source))
        if digest is None:
            invalid += 1
        elif same:
            equivalent += 1
        elif (unit, digest) in seen:
            duplicates += 1
        else:
            seen.add((unit, digest))
            kept.append(_mutant(ctx, proposal, result, source, file, module, ordinals))
    return FileMutants(
        file=file,
        mutants=tuple(kept),
        dropped_equivalent=equivalent,
        dropped_duplicates=duplicates,
        dropped_invalid=invalid,
    )


def _compile_units(
    source: str,
    file: str,
    tree: cst.Module,
    positions: Mapping[cst.CSTNode, CodeRange],
    starts: Sequence[int],
) -> CompileUnits:
    ranges = []
    for statement in tree.body:
        where = positions[statement]
        ranges.append((starts[where.start.line - 1] + where.start.column,
                       starts[where.end.line - 1] + where.end.column))
    try:
        return CompileUnits(source, file, ranges)
    except (SyntaxError, ValueError) as error:
        raise SourceError(f"{file}: does not compile: {error}") from None


def _has_pragma(result: Splice, pragmas: frozenset[int]) -> bool:
    last = result.span.end_line - (result.span.end_column == 0 and result.span.end_line > result.span.line)
    return any(line in pragmas for line in range(result.span.line, last + 1))


def _mutant(
    ctx: Context,
    proposal: Proposal,
    result: Splice,
    source: str,
    file: str,
    module: str,
    ordinals: Counter[tuple[str, ...]],
) -> Mutant:
    mutator = proposal.mutator
    scope, function = _scope_and_function(ctx, proposal.target)
    key = (mutator.name, scope, result.original, result.mutated)
    ordinal = ordinals[key]
    ordinals[key] += 1
    explanation = proposal.explanation or mutator.explanation
    return Mutant(
        id=mutant_id(file, mutator.name, scope, result.original, result.mutated, ordinal),
        operator=mutator.name,
        family=mutator.family,
        file=file,
        module=module,
        function=function,
        scope=scope,
        span=result.span,
        original=result.original,
        mutated=result.mutated,
        explanation=explanation.format(
            original=_short(result.original), mutated=_short(result.mutated)
        ),
        diff=span_diff(file, source, result.span, result.mutated),
    )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def enumerate_mutants(
    files: Iterable[Path], *, root: Path, mutators: Sequence[AnyMutator]
) -> Enumeration:
    """The mutants of `files` (already discovered), each file read, parsed and visited once."""
    started = time.perf_counter()
    results = []
    skipped = []
    for path in files:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
        source = read_source(path, relative)
        try:
            results.append(
                mutants_of_source(source, file=relative, module=module_name(path), mutators=mutators)
            )
        except RecursionError:
            # libcst visits expressions recursively; CPython compiles deeper ones (a sum of
            # hundreds of terms). Raising the limit could overflow the C stack instead.
            skipped.append(Skipped(file=relative, reason="too deeply nested for libcst to visit"))
    return Enumeration(
        mutants=tuple(m for r in results for m in r.mutants),
        files=tuple(results),
        seconds=time.perf_counter() - started,
        skipped=tuple(skipped),
    )
