"""The child side of survivor triage: replay, search and check, in a forked worker child.

The worker imports `probe` only when a triage job arrives (harness.child.worker.HANDLERS), so
a worker that only runs tests never loads hypothesis. The coordinator side is harness.triage.
"""
