"""How every child interpreter starts: the protocol streams, the project on `sys.path`, the
memory cap, and pytest's command line and collection errors in one line."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path
from typing import Any

import pytest

from bugsmith.harness.child.copy_imports import serve_from_copy
from bugsmith.harness.shared.protocol import JOB_BUFFER, WorkerSetup
from bugsmith.harness.shared.tool_state import STATE_DIR


def protocol_streams(raw: bool = False) -> tuple[Any, Any]:
    """Take stdin/stdout for the coordinator's protocol and point fds 0/1 at /dev/null.

    Tests and pytest itself print to stdout; they must never corrupt the protocol stream. The
    reader is buffered (JOB_BUFFER) unless `raw`: a stream that also carries descriptors (the
    zygote's) must never be read ahead.
    """
    reader = os.fdopen(os.dup(0), "rb", buffering=0 if raw else JOB_BUFFER)
    writer = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    return reader, writer


def enter_project(setup: WorkerSetup) -> None:
    """Work in the project's root, with the root first on `sys.path`, as pytest run there would:
    children start with `-P` (harness.shared.interpreter.module_command), so that bugsmith itself is
    imported before the project's packages can shadow it."""
    os.chdir(setup.root)
    sys.path.insert(0, setup.root)
    if setup.origin:
        # Running in a private copy (harness.executors.project_copy): a `.pth` or finder of an editable
        # install, or PYTHONPATH, may name the project's own folders (`src/`).
        serve_from_copy(setup.origin, setup.root)


def limit_memory(extra_mb: int) -> None:
    """Cap the address space so a runaway allocation fails fast instead of eating the machine."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        current = int(statm.read().split()[0]) * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = current + extra_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def suite_arguments(setup: WorkerSetup) -> list[str]:
    """pytest's arguments for collecting the whole suite in a long-lived process (a worker, the
    call recorder): test order must be the collection order the coordinator planned with."""
    return [*setup.pytest_args, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *setup.test_paths]


def collect_error(report: pytest.CollectReport) -> str:
    """A collection failure in one line: the file and the error pytest ends its report with
    (e.g. `E   ImportError: ...`), never a multi-line traceback."""
    lines = str(report.longrepr).strip().splitlines() or ["(no message)"]
    last = lines[-1].strip()
    return f"{report.nodeid}: {last[1:].strip() if last.startswith('E ') else last}"[:300]


class CollectErrors:
    """A pytest plugin that keeps what stops the tests from being collected, each in one line:
    failed collection reports, and pytest's internal errors (a plugin that raises while pytest
    configures, say)."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append(collect_error(report))

    def pytest_internalerror(self, excrepr: object, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # pytest prints an internal error to stdout, which is /dev/null here (protocol_streams):
        # keep its last line, and write it where the worker's log sees it.
        line = f"{excinfo.typename}: {excinfo.value}".splitlines()[0][:300]
        self.errors.append(f"pytest stopped with an internal error: {line}")
        print(line, file=sys.stderr, flush=True)


class StateOutsideTheTree:
    """A pytest plugin: moves pytest-benchmark's storage when that plugin is loaded."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        if hasattr(config.option, "benchmark_storage"):
            config.option.benchmark_storage = f"file://{self.root / STATE_DIR / 'benchmarks'}"
