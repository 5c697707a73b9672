"""``python -m semiprivate``: the command line (:mod:`semiprivate.cli`)."""

import sys

from semiprivate.cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
