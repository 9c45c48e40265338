"""Where the installed package keeps the tools and the runtime."""

import os

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
BIN_DIR = os.path.join(PACKAGE_DIR, "bin")
RUNTIME_DIR = os.path.join(PACKAGE_DIR, "lib", "autodist")
RUNTIME_LINK_FILE = os.path.join(RUNTIME_DIR, "autodist-runtime-link.txt")


def tool(name: str) -> str:
    """The path of the installed command-line tool `name`."""
    return os.path.join(BIN_DIR, name)
