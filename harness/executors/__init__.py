"""What runs jobs for the coordinator: the Executor protocol (`base`), the timeout-confirmation
rule every executor shares (`confirmation`), the implementations (`fork_pool`,
`subprocess_pool`, `distributed`, `in_copy` with the private `project_copy` it runs in), and the
one table that lists them (`table`): the CLI's choices come from it."""
