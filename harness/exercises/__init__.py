"""Debug exercises and challenge packs: validated bugs a candidate finds, fixes and is graded on."""

from bugsmith.harness.exercises.assemble.selection import build_exercises, problems_of
from bugsmith.harness.exercises.records import Difficulty, Exercise, ExerciseError, ExerciseOptions, Symptom

__all__ = [
    "Difficulty", "Exercise", "ExerciseError", "ExerciseOptions", "Symptom",
    "build_exercises", "problems_of",
]
