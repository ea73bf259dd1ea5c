"""Judging what a candidate hands in: a fix graded with a verdict their code cannot forge
(`grading`, reading the submission with `submission`, the differential check, canaries, tests run
in a sandbox by `suite_runs` and `confined`, and `sandboxed/`, what runs beside their code), and a
candidate's own tests scored (`scoring`, with `disguised_controls`, and the `lessons` of what they
missed, by `behaviours`)."""
