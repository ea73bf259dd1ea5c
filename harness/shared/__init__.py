"""What both sides of the process boundary use: the records that cross it (`protocol`, `tasks`),
how a helper interpreter is started (`interpreter`, `sandbox`, `tool_state`), the zygote's and
the preloader's requests (`zygote`, `preload`) and the marks a job's processes carry
(`leftovers`). These modules import only each other: the child side imports only `child/` and
this package, so a worker never loads the coordinator."""
