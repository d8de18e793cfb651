"""``python -m fenceline ARGS`` and the ``fenceline`` console script: run the
bundled checker with ARGS (see ``fenceline --help``)."""

import sys

from fenceline import main

if __name__ == "__main__":
    sys.exit(main())
