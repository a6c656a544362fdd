#!/usr/bin/env bash
# scripts/sdist_check.sh PYTHON SDIST
#
# What: the source distribution (`make sdist`: dist/augpy-<version>.tar.gz) builds from scratch
# and works: PYTHON (a venv's interpreter with scikit-build-core, `make sdist-check` passes .venv's)
# builds a wheel from the sdist alone, outside the checkout (pip unpacks it into a temporary folder:
# no file of the checkout is reachable), that wheel installs with --no-deps into a fresh venv
# (NumPy from PYTHON's venv through a .pth file, as in scripts/wheel_check.sh), and
# tests/python/wheel_smoke.py runs there from outside the checkout. A file the build needs but the
# sdist lacks fails the build. A full compile of libaug and the extension (JOBS compile jobs; about
# 1.5 CPU-minutes), part of `make test` (docs/development.md, "The wheel").
set -euo pipefail

die() { echo "sdist_check: FAIL: $*" >&2; exit 1; }
[ $# -eq 2 ] || { echo "usage: $0 PYTHON SDIST" >&2; exit 2; }
PY=$1 SDIST=$2
PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")  # absolute: used from other folders
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$SDIST" ] || die "no sdist at $SDIST (make sdist writes it)"
SDIST=$(cd "$(dirname "$SDIST")" && pwd)/$(basename "$SDIST")
unset AUG_CUDA_BACKEND AUG_CUDA_MODULE AUG_REQUIRE_CUDA AUG_DEVICE PYTHONPATH
T=$(mktemp -d /tmp/augpy-sdist-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
start=$(date +%s)

[ -n "${JOBS:-}" ] && export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
(cd "$T" && "$PY" -m pip wheel -q --no-build-isolation --no-deps -w "$T/wheel" "$SDIST") \
  || die "building a wheel from $SDIST failed"
built=$(( $(date +%s) - start ))
BASE=$("$PY" -c 'import sys, os; print(os.path.join(sys.base_prefix, "bin", "python3"))')
"$BASE" -m venv --without-pip "$T/venv" || die "$BASE -m venv failed"
VPY=$T/venv/bin/python
SITE=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$PY" -m pip --python "$VPY" install -q --no-deps --no-index "$T"/wheel/augpy-*.whl || die "installing the wheel failed"
NP=$("$PY" -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')
mkdir -p "$T/numpy_only"
for f in "$NP"/numpy "$NP"/numpy.libs "$NP"/numpy-*.dist-info; do if [ -e "$f" ]; then ln -s "$f" "$T/numpy_only/"; fi; done
echo "$T/numpy_only" > "$SITE/numpy_only.pth"
cp "$ROOT/tests/python/wheel_smoke.py" "$T/"
SMOKE=(--site "$SITE")
{ [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; } || SMOKE+=(--expect-cpu)
(cd "$T" && "$VPY" wheel_smoke.py "${SMOKE[@]}") || die "the smoke test of the wheel built from $SDIST failed"
echo "sdist_check: ok ($(basename "$SDIST"), $(du -k "$SDIST" | cut -f1) KiB): built in ${built} s," \
     "$(( $(date +%s) - start )) s in all"
