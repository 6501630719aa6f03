"""``python -m gasp``: the same command line as ``gasp``."""

from gasp.cli import main

if __name__ == "__main__":
    main()
