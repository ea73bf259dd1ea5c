"""`python -m bugsmith`: the same command line as the `bugsmith` script."""

from bugsmith.harness.cli import main

if __name__ == "__main__":
    main()
