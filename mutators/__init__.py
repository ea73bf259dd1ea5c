"""libcst rewrites that inject realistic bugs, the Mutant record, and the engine."""
