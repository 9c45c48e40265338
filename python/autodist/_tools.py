"""Console scripts: the command-line tools installed inside the package."""

import os
import sys

from . import _paths


def _exec(name: str) -> None:
    exe = os.path.join(_paths.BIN_DIR, name)
    if not os.access(exe, os.X_OK):
        sys.exit(f"{name}: not installed in {_paths.BIN_DIR}")
    os.execv(exe, [exe] + sys.argv[1:])


def autodist_compile() -> None:
    _exec("autodist-compile")


def autodist_opt() -> None:
    _exec("autodist-opt")


def autodist_translate() -> None:
    _exec("autodist-translate")
