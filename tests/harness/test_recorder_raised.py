"""Where a failing test's traceback ends in the code under test: recorded for a failure pytest
reports, not for one the xfail machinery turns into an expected failure."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import pytest
    from bugsmith.harness.child.recorder import Recorder

    recorder = Recorder(frozenset({sys.argv[1]}))
    pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[2]], plugins=[recorder])
    print(json.dumps(sorted(line for _, line in recorder.raised)))
    """
)


def test_the_innermost_frame_in_the_code_is_kept_for_reported_failures_only(tmp_path: Path) -> None:
    code = tmp_path / "shop.py"
    code.write_text("def price(n):\n    if n < 0:\n        raise ValueError(n)\n    return {}[n]\n")
    tests = tmp_path / "test_shop.py"
    tests.write_text(textwrap.dedent(
        """
        import pytest
        from shop import price


        def test_lookup_fails():
            price(1)


        @pytest.mark.xfail(raises=ValueError)
        def test_negative_is_expected_to_fail():
            price(-1)


        def test_no_code_involved():
            assert 1 == 2
        """
    ))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(code), str(tests)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [4]  # `{}[n]`; not the xfailed raise on line 3
