"""What several bug families need to know about a tree, and how they rewrite it in place.

Each module answers one kind of question: `arguments` reads and edits a call's arguments,
`receivers` tells a module's function from a method, `expressions` reads literals and builds
replacements that keep precedence and spacing, `names` splits identifiers into words, `nodes`
finds nodes typed as the class that its matcher matches, and `explanations` rewords an
explanation that the engine would quote badly. A helper that only one family uses lives in that
family's subpackage instead.
"""
