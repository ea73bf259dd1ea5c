"""How hard a bug is to find, from evidence: fault localisation over the visible tests
(`localisation`), the mutant under coverage and a repair search that holds the undo edit of every
operator (`probes`, `inverses`), comments and docstrings that give a bug away (`intent`, and
`clues`, which drops them from a medium or hard handout), an exercise's level from its bugs'
findability (`difficulty`) and the level check during a build (`levels`)."""
