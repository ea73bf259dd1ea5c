"""Run test suites against mutants, score them, report, and build exercises."""
