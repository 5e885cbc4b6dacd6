"""python3 -m sarfuse ...: the sarfuse command line (the same code as the `sarfuse` executable)."""
import sys

from . import _sarfuse


def main() -> int:
    return _sarfuse._cli_main(["sarfuse"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
