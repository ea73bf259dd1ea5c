"""Which bugs become exercises: mutants chosen and validated fail-to-pass (`selection`), the
windows a seed takes (`pool`), edits no person would write left out (`traces`), and seeded
variants of the code (`rewrites`, `variants`); how many a problem can give (`stats`)."""
