"""What runs inside the grading sandbox, next to a submission's code.

The grader copies these modules into the sandbox as the package `bugsmith_grading` (bugsmith
itself is hidden there), so they import only the standard library, pytest, and each other:

- `reporter`: a pytest plugin that streams each test's start and outcome to the grader;
- `recorder`: a pytest plugin, for the reference code only, that records the suite's calls
  into the code's public functions and what they returned;
- `replay`: calls those functions of the submission with the same arguments;
- `values`: the data form in which results leave the sandbox; `channel`: the pipe they take.

Nothing here decides a grade: a submission's code runs in the same process and can change
any of it. The grader compares what comes out, as data, in its own process.
"""
