"""What several bug families need to know about a tree, and how they rewrite it in place.

Each module answers one kind of question: `arguments` reads and edits a call's arguments,
`receivers` tells a module's function from a method, `expressions` reads literals and builds
replacements that keep precedence and spacing, `names` splits identifiers into words, `nodes`
finds nodes typed as the class that its matcher matches, `explanations` rewords an
explanation that the engine would quote badly, `checks` tells whether a condition refuses an
input, `twins` finds code written as a pair and `slips` says which edits of one twin a person
makes, and `keyword_traps` holds the one table of library keywords set the wrong way, whose
rows the `keyword-trap` operators of several families make. A helper that only one family uses
lives in that family's subpackage instead.
"""
