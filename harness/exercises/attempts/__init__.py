"""Graded attempts kept over a season, to learn each exercise's true difficulty.

`bugsmith grade ... --save-attempt DIR` keeps each grade with what the summary needs and the grade
lacks (`saving`: the pack's identity, the exercise's label, when it was graded, who and how many
hints); `bugsmith attempts summarise DIR` reads them back (`reading`) and sets what candidates
took against what each exercise's label promised (`summarising`, printed by `text`). The records
are in `records`.
"""
