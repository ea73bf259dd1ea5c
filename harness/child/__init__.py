"""The child side of the harness: code that runs only inside interpreters the coordinator starts.

Fork-server workers (`python -m bugsmith.harness.child.worker`), fresh interpreters for one job
(`...child.isolated`), the fresh baseline (`...child.coverage_run`) and triage's call recorder
(`...child.triage.call_recorder`), and the forked children of the workers. Everything here may
run a mutant or the user's tests, so it is kept apart from the coordinator: it imports only
itself, `harness.shared` (the records and launch rules both sides use) and `bugsmith.mutators`,
and the coordinator never imports it; it only names its modules in the commands it starts.
"""
