#!/usr/bin/env bash
# Installs what scripts/fuzz.sh needs beyond scripts/setup.sh: clang and its
# sanitizer/libFuzzer runtimes. Only fuzzing needs them; the normal build and
# test suite (which also replays the fuzz corpora) build with g++.
# Idempotent. Usage: scripts/setup-fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt-install.sh
apt_install setup-fuzz clang-22 libclang-rt-22-dev
