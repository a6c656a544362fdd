#!/usr/bin/env bash
# scripts/dev_build.sh BUILD_DIR [cmake args...]: a development build beside the
# installed augpy. Builds libaug, the C tests and the augpy extension into
# BUILD_DIR, and assembles an importable package in BUILD_DIR/pkg/augpy (the
# Python sources symlinked, the fresh extension copied). Use it with
#   PYTHONPATH=BUILD_DIR/pkg .venv/bin/python -m pytest tests/python
# so several builds (one per work tree or per person) never touch .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: scripts/dev_build.sh BUILD_DIR [cmake args...]}
shift
py=${PYTHON:-.venv/bin/python}
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DAUG_BUILD_PYTHON=ON -DPython_EXECUTABLE="$(realpath "$py")" "$@" >/dev/null
cmake --build "$b" -j"${JOBS:-2}"
pkg="$b/pkg/augpy"
rm -rf "$pkg" && mkdir -p "$pkg"
for f in python/augpy/*; do
  [ "$(basename "$f")" = _augpy ] && continue
  ln -s "$(realpath "$f")" "$pkg/"
done
cp "$b"/python/_augpy*.so "$pkg/"
echo "augpy importable with PYTHONPATH=$b/pkg"
