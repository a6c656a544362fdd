#!/usr/bin/env bash
# scripts/wheel_check.sh PYTHON WHEEL [EMU_MODULE]
#
# What: checks a repaired augpy wheel (scripts/build_wheel.sh; `make wheel-check`, part of `make test`)
# as a user gets it, in a fresh venv under a temporary folder (removed at the end):
#   1. `auditwheel show` reports a manylinux tag, and the file name carries it;
#   2. the wheel installs with --no-deps; NumPy, augpy's one run-time dependency (augpy.targets imports
#      it), comes from PYTHON's venv through a .pth file naming a folder that holds NumPy alone;
#   3. `ldd` of every .so the package installed resolves every library to a file inside the package,
#      except glibc's (libc, libm, libpthread, libdl, librt, ld-linux, the vDSO) and the C++ runtime
#      the manylinux policy assumes (libstdc++, libgcc_s: the CUDA module's, and the vendored libtiff's
#      libLerc's): nothing else is taken from the system, whatever libraries the build links;
#   4. tests/python/wheel_smoke.py (decode a JPEG and a PNG, warp, a DecodeWarp batch; the version is
#      the metadata's) runs from outside the checkout, on the CPU when this machine has no GPU, with
#      cuda_status() saying why; with the CUDA module in the wheel that reason must come from the
#      module (it was found beside the extension and loaded), not "no CUDA module", and name the
#      missing driver where libcuda.so.1 is not installed;
#   5. the same smoke run with every system library the unrepaired extension links (libturbojpeg,
#      libjpeg, libspng, ...: read from its ldd, not a fixed list) made invisible, except those the
#      interpreter has loaded before importing augpy (libz, for CPython's zlib; check 3 covers
#      them): a mount namespace (unshare -m, as root) bind-mounts an empty file over each; skipped
#      with a message where unshare is not permitted;
#   6. with the CUDA module in the wheel: scripts/check_fatbin.py --targets-only finds SASS for sm_75,
#      80, 90, 100 and compute_100 PTX in it (AUG_CUOBJDUMP from build/cuda.env; `make cuda-check` runs
#      the full checks on the same file, build-nvcc/libaug_cuda.so);
#   7. with EMU_MODULE (the emulated module, build/libaug_cuda_emu.so) copied beside the installed
#      extension: tests/python/wheel_emu_libs.py without, then with a fake NVIDIA wheel folder
#      (site-packages/nvidia/cu13/lib/libcublas.so.13, libnvjpeg.so.13) where `pip install
#      augpy[cuda]` puts them: cuBLAS and nvJPEG are found there, and there before the loader's path.
# Exit 0 when every check passes; the first failure stops with its message.
set -euo pipefail

die() { echo "wheel_check: FAIL: $*" >&2; exit 1; }
say() { echo "wheel_check: $*"; }
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 PYTHON WHEEL [EMU_MODULE]" >&2; exit 2; }
PY=$1 WHEEL=$2 EMU=${3:-}
PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")  # absolute: used from other folders
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$WHEEL" ] || die "no wheel at $WHEEL (make wheel builds it)"
WHEEL=$(cd "$(dirname "$WHEEL")" && pwd)/$(basename "$WHEEL")
unset AUG_CUDA_BACKEND AUG_CUDA_MODULE AUG_REQUIRE_CUDA AUG_DEVICE PYTHONPATH
T=$(mktemp -d /tmp/augpy-wheel-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
start=$(date +%s)

# 1. the platform tag
show=$("$PY" -m auditwheel show "$WHEEL" 2>&1) || die "auditwheel show $WHEEL: $show"
tag=$(grep -o 'manylinux_[0-9]*_[0-9]*_x86_64' <<<"$show" | head -n1)
[ -n "$tag" ] || die "auditwheel show reports no manylinux tag: $show"
case "$(basename "$WHEEL")" in *"$tag"*) ;; *) die "$(basename "$WHEEL") is not tagged $tag" ;; esac
say "auditwheel: $tag"

# 2. a fresh venv with the wheel alone (and NumPy)
"$PY" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' || die "$PY is not a venv's interpreter"
BASE=$("$PY" -c 'import sys, os; print(os.path.join(sys.base_prefix, "bin", "python3"))')
"$BASE" -m venv --without-pip "$T/venv" || die "$BASE -m venv failed"
VPY=$T/venv/bin/python
SITE=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$PY" -m pip --python "$VPY" install -q --no-deps --no-index "$WHEEL" || die "pip install --no-deps $WHEEL failed"
NP=$("$PY" -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')
mkdir -p "$T/numpy_only"
for f in "$NP"/numpy "$NP"/numpy.libs "$NP"/numpy-*.dist-info; do if [ -e "$f" ]; then ln -s "$f" "$T/numpy_only/"; fi; done
echo "$T/numpy_only" > "$SITE/numpy_only.pth"
PKG=$SITE/augpy
[ -d "$PKG" ] || die "the wheel installed no augpy/ in $SITE"

# 3. every library of every installed .so resolves inside the package
GLIBC='^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|ld-linux-x86-64\.so\.2|/lib64/ld-linux-x86-64\.so\.2)$'
CXXRT='^(libstdc\+\+\.so\.6|libgcc_s\.so\.1)$'
nso=0
while IFS= read -r so; do
  nso=$((nso + 1))
  out=$(ldd "$so" 2>&1) || die "ldd $so: $out"
  while read -r name arrow path _; do
    [ -n "$name" ] || continue
    grep -Eq "$GLIBC" <<<"$name" && continue
    grep -Eq "$CXXRT" <<<"$name" && continue
    [ "$arrow" = "=>" ] || die "ldd $so: unexpected line '$name $arrow $path'"
    [ "$path" != "not" ] || die "$so needs $name, which is not found"
    real=$(readlink -f "$path")
    case "$real" in "$SITE"/augpy/*|"$SITE"/augpy.libs/*) ;; *) die "$so takes $name from $real, outside the wheel" ;; esac
  done <<<"$out"
done < <(find "$SITE"/augpy "$SITE"/augpy.libs -name '*.so*' -type f 2>/dev/null)
[ "$nso" -gt 0 ] || die "no .so in the installed package"
say "ldd: $nso shared objects, every non-glibc library inside the wheel ($(ls "$SITE"/augpy.libs 2>/dev/null | tr '\n' ' '))"

# 4. the smoke test, from outside the checkout
HAS_GPU=0
{ [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; } && HAS_GPU=1
SMOKE=(--site "$SITE")
[ $HAS_GPU = 1 ] || SMOKE+=(--expect-cpu)
cp "$ROOT/tests/python/wheel_smoke.py" "$ROOT/tests/python/wheel_emu_libs.py" "$T/"
run_smoke() { (cd "$T" && "$VPY" wheel_smoke.py "${SMOKE[@]}"); }
log=$(run_smoke 2>&1) || die "smoke test: $log"
echo "$log"
if [ -f "$PKG/libaug_cuda.so" ] && [ $HAS_GPU = 0 ]; then
  grep -q "cuda_status: no CUDA device" <<<"$log" || die "the wheel's CUDA module did not load and report why: $log"
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    grep -q "cuda_status: no CUDA device (no NVIDIA driver: libcuda.so.1 is not installed)" <<<"$log" \
      || die "on this machine without NVIDIA's driver cuda_status() must say so: $log"
  fi
fi

# 5. again with the system's copies of the vendored libraries hidden
EXT=$(find "$ROOT"/build-wheel/cmake -name "_augpy*.so" 2>/dev/null | head -n1)
[ -n "$EXT" ] || die "no unrepaired extension in build-wheel/cmake (scripts/build_wheel.sh leaves it there)"
# ... except what the interpreter itself has mapped before it imports augpy (CPython's zlib module
# links libz): hiding that would break Python, not test the wheel
inuse=$(cd "$T" && "$VPY" -c 'import argparse, importlib.metadata, os, struct, sys, zlib, numpy
print("\n".join(sorted({os.path.realpath(l.split()[-1]) for l in open("/proc/self/maps") if ".so" in l})))')
hide=() kept=()
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] && [ -f "$path" ] || continue
  grep -Eq "$GLIBC" <<<"$name" && continue
  real=$(readlink -f "$path")
  if grep -Fxq "$real" <<<"$inuse"; then kept+=("$name"); else hide+=("$real"); fi
done < <(ldd "$EXT")
[ ${#hide[@]} -gt 0 ] || die "ldd $EXT lists no library to hide"
if unshare -m true 2>/dev/null; then
  : > "$T/empty"
  export T VPY
  log=$(unshare -m bash -c '
    set -e
    mount --make-rprivate / 2>/dev/null || true
    for f in "$@"; do mount --bind "$T/empty" "$f"; done
    for f in "$@"; do [ ! -s "$f" ] || { echo "still visible: $f"; exit 1; }; done
    cd "$T" && "$VPY" wheel_smoke.py '"${SMOKE[*]}"'
  ' hide "${hide[@]}" 2>&1) || die "smoke test with ${hide[*]} hidden: $log"
  say "hidden: ${hide[*]}${kept:+ (not hidden, the interpreter has them loaded: ${kept[*]})}"
  echo "$log"
else
  say "SKIPPED the smoke test with the system libraries hidden: unshare -m is not permitted here (needs root)"
fi

# 6. the CUDA module's architectures
if [ -f "$PKG/libaug_cuda.so" ]; then
  [ -f "$ROOT/build/cuda.env" ] || die "build/cuda.env is missing (make build/cuda.env finds cuobjdump)"
  set -a; . "$ROOT/build/cuda.env"; set +a
  log=$("$PY" "$ROOT/scripts/check_fatbin.py" --cuobjdump "$AUG_CUOBJDUMP" --targets-only \
    --sass-targets sm_75,sm_80,sm_90,sm_100 --ptx-targets compute_100 "$PKG/libaug_cuda.so" 2>&1) \
    || die "the wheel's CUDA module: $log"
  say "CUDA module: $log"
else
  say "no CUDA module in this wheel (make wheel builds one where make cuda can)"
fi

# 7. the emulated module finds cuBLAS and nvJPEG in the NVIDIA wheels' folder
if [ -n "$EMU" ]; then
  [ -f "$EMU" ] || die "no emulated module at $EMU"
  cp "$EMU" "$PKG/libaug_cuda_emu.so"
  emu() { (cd "$T" && AUG_CUDA_BACKEND=emu AUG_EMU_NVJPEG=1 AUG_EMU_LIBS_IN_WHEELS=$2 "$VPY" wheel_emu_libs.py "$1"); }
  log=$(emu absent 1 2>&1) || die "$log"
  echo "$log"
  mkdir -p "$SITE/nvidia/cu13/lib"
  : > "$SITE/nvidia/cu13/lib/libcublas.so.13"
  : > "$SITE/nvidia/cu13/lib/libnvjpeg.so.13"
  log=$(emu present 1 2>&1) || die "$log"
  echo "$log"
  log=$(emu first 0 2>&1) || die "$log"
  echo "$log"
fi
say "ok ($(basename "$WHEEL"), $(du -k "$WHEEL" | cut -f1) KiB) in $(( $(date +%s) - start )) s"
