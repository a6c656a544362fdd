#!/usr/bin/env bash
# scripts/test_cuda_toolchain.sh: self-test of scripts/cuda_toolchain.sh.
#
# What: runs cuda_toolchain.sh against a scratch virtualenv ($AUG_TEST_VENV, else a temp dir removed at
# the end) in three situations and checks what it prints and what the printed toolchain can do:
#  1. system: the machine's CUDA 13 toolkit is used (AUG_CUDA_ORIGIN=system); every printed path exists;
#     a second run with PIP_NO_INDEX=1 (pip could not download anything) prints the same, and nothing on
#     stderr. Skipped when the machine has no toolkit.
#  2. partial system toolkit: a symlinked copy without cuBLAS in CUDA_HOME -> system nvcc, wheel cuBLAS.
#  3. fresh machine: AUG_CUDA_FORCE_WHEELS=1, CUDA_HOME=/nonexistent, PATH without CUDA; as root with
#     `unshare -m` available, /usr/local is also hidden under an empty tmpfs (so neither /usr/local/cuda
#     nor the /usr/local/include and /usr/local/lib links to it can leak in). The wheel nvcc then builds a
#     kernel for sm_75/80/90/100 + compute_100 PTX with --fmad=false into a shared object linked against
#     the wheels' static cudart, libcublas.so.13 and libnvjpeg.so.13; g++ compiles cuda_runtime.h,
#     cuda_fp16.h, cublas_v2.h and nvjpeg.h host code with AUG_CUDA_INCLUDE; check_fatbin.py passes the
#     .so; a second run is offline-quiet as in 1.
# Why: a fresh Debian 12 machine has no CUDA; the project must still build its CUDA backend there.
# How: bash scripts/test_cuda_toolchain.sh. Needs PyPI the first time (about 512 MB of wheels, 880 MB
#   installed; pip's cache makes later runs ~15 s). Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
t_start=$SECONDS

if [ -n "${AUG_TEST_VENV:-}" ]; then
  V=$AUG_TEST_VENV; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
else
  tmp=$(mktemp -d); V=$tmp/venv; trap 'rm -rf "$tmp"' EXIT
fi

passed=0 failed=0
result() {  # result NAME OK
  if [ "$2" = 1 ]; then passed=$((passed + 1)); echo "ok   $1"
  else failed=$((failed + 1)); echo "FAIL $1"; fi
}
note() { echo "    $*"; }

# check_env FILE ORIGIN: every printed path is what it claims to be
check_env() {
  local f=$1 origin=$2 ok=1 d
  (
    set +u
    # shellcheck disable=SC1090
    . "$f"
    fail() { echo "    bad: $*"; exit 1; }
    [ "$AUG_CUDA_ORIGIN" = "$origin" ] || fail "AUG_CUDA_ORIGIN=$AUG_CUDA_ORIGIN, want $origin"
    case "$AUG_CUDA_VERSION" in 13.*) ;; *) fail "AUG_CUDA_VERSION=$AUG_CUDA_VERSION";; esac
    [ -x "$AUG_NVCC" ] || fail "AUG_NVCC=$AUG_NVCC"
    [ -e "${AUG_CUDA_INCLUDE%%:*}/cuda_runtime.h" ] || fail "no cuda_runtime.h in $AUG_CUDA_INCLUDE"
    found=0; IFS=: read -ra ds <<<"$AUG_CUDA_INCLUDE"
    for d in "${ds[@]}"; do [ -e "$d/nv/target" ] && found=1; done
    [ $found = 1 ] || fail "no nv/target (CCCL) in $AUG_CUDA_INCLUDE"
    [ -e "$AUG_CUDA_LIBDIR/libcudart_static.a" ] || fail "no libcudart_static.a in $AUG_CUDA_LIBDIR"
    [ -e "$AUG_CUBLAS_INCLUDE/cublas_v2.h" ] || fail "no cublas_v2.h in $AUG_CUBLAS_INCLUDE"
    [ -e "$AUG_CUBLAS_LIBDIR/libcublas.so.13" ] || fail "no libcublas.so.13 in $AUG_CUBLAS_LIBDIR"
    [ -x "$AUG_CUOBJDUMP" ] && [ -x "$AUG_NVDISASM" ] || fail "cuobjdump/nvdisasm"
    [ -e "$AUG_NVJPEG_INCLUDE/nvjpeg.h" ] || fail "no nvjpeg.h in $AUG_NVJPEG_INCLUDE"
    [ -e "$AUG_NVJPEG_LIBDIR/libnvjpeg.so.13" ] || fail "no libnvjpeg.so.13 in $AUG_NVJPEG_LIBDIR"
    "$AUG_CUOBJDUMP" --version | grep -q "release 13\." || fail "cuobjdump --version"
    "$AUG_NVCC" --version | grep -q "release 13\.0" || fail "nvcc is not 13.0"
    n=$(grep -c . "$f"); [ "$n" = 11 ] || fail "$n lines on stdout, want 11"
  ) || ok=0
  return $((1 - ok))
}

# offline_rerun NAME ENV_FILE [env assignments...]: same lines, silent stderr, no pip download possible
offline_rerun() {
  local name=$1 f=$2 ok=1 t0=$SECONDS; shift 2
  env "$@" PIP_NO_INDEX=1 scripts/cuda_toolchain.sh "$V" > "$tmp/again.env" 2> "$tmp/again.err" || ok=0
  cmp -s "$f" "$tmp/again.env" || { note "second run printed other lines"; ok=0; }
  [ ! -s "$tmp/again.err" ] || { note "second run wrote to stderr:"; sed 's/^/    | /' "$tmp/again.err"; ok=0; }
  result "$name: second run offline, identical, quiet ($((SECONDS - t0)) s)" $ok
}

GENCODE="-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=sm_100 -gencode arch=compute_100,code=compute_100"

# ---- 1. system toolkit ------------------------------------------------------------------------------
have_system=0
for n in "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc "$(command -v nvcc || true)"; do
  [ -n "$n" ] && [ -x "$n" ] && have_system=1
done
if [ $have_system = 1 ]; then
  t0=$SECONDS; ok=1
  scripts/cuda_toolchain.sh "$V" > "$tmp/sys.env" 2> "$tmp/sys.err" || { ok=0; cat "$tmp/sys.err"; }
  [ $ok = 1 ] && { check_env "$tmp/sys.env" system || ok=0; }
  result "system toolkit: $(grep AUG_NVCC= "$tmp/sys.env" || echo '?') ($((SECONDS - t0)) s)" $ok
  offline_rerun "system toolkit" "$tmp/sys.env"

  # ---- 2. partial system toolkit: no cuBLAS ---------------------------------------------------------
  # shellcheck disable=SC1090
  sys_nvcc=$(. "$tmp/sys.env"; echo "$AUG_NVCC") sys_inc=$(. "$tmp/sys.env"; echo "${AUG_CUDA_INCLUDE%%:*}")
  sys_top=$(cd "$(dirname "$sys_nvcc")/.." && pwd)
  fake=$tmp/fakecuda; mkdir -p "$fake/bin" "$fake/include" "$fake/lib64"
  for f in "$sys_top"/bin/*; do ln -s "$f" "$fake/bin/"; done
  ln -s "$sys_top/nvvm" "$fake/nvvm"
  for f in "$sys_inc"/*; do case ${f##*/} in cublas*|nvblas*) ;; *) ln -s "$f" "$fake/include/";; esac; done
  # shellcheck disable=SC1090
  ln -s "$(. "$tmp/sys.env"; echo "$AUG_CUDA_LIBDIR")/libcudart_static.a" "$fake/lib64/"
  t0=$SECONDS; ok=1
  CUDA_HOME=$fake scripts/cuda_toolchain.sh "$V" > "$tmp/part.env" 2> "$tmp/part.err" || { ok=0; cat "$tmp/part.err"; }
  grep -qx "AUG_NVCC=$fake/bin/nvcc" "$tmp/part.env" || { note "nvcc not taken from CUDA_HOME"; ok=0; }
  grep -q "^AUG_CUBLAS_LIBDIR=$V/" "$tmp/part.env" || { note "cuBLAS not taken from the venv"; ok=0; }
  [ $ok = 1 ] && { check_env "$tmp/part.env" system || ok=0; }
  result "system toolkit without cuBLAS: nvcc from CUDA_HOME, cuBLAS wheel ($((SECONDS - t0)) s)" $ok
else
  echo "skip system toolkit cases: no nvcc in \$CUDA_HOME, /usr/local/cuda or PATH"
fi

# ---- 3. fresh machine -------------------------------------------------------------------------------
cat > "$tmp/fresh.sh" <<'EOF'
# runs inside `unshare -m` (or plain bash): hide the system CUDA, then run the wheel path end to end
set -euo pipefail
ROOT=$1 V=$2 tmp=$3 GENCODE=$4 hide=$5
if [ "$hide" = 1 ]; then mount -t tmpfs none /usr/local; fi
export PATH=$(tr ':' '\n' <<<"$PATH" | grep -v -i cuda | grep -v '^/usr/local' | paste -sd: -)
export CUDA_HOME=/nonexistent AUG_CUDA_FORCE_WHEELS=1
unset LIBRARY_PATH LD_LIBRARY_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH CUDA_PATH
cd "$ROOT"
t0=$SECONDS
scripts/cuda_toolchain.sh "$V" > "$tmp/wheel.env" 2> "$tmp/wheel.err" || { cat "$tmp/wheel.err"; exit 10; }
echo "toolchain $((SECONDS - t0)) s"
. "$tmp/wheel.env"
case "$AUG_NVCC" in "$V"/*) ;; *) echo "nvcc not from the venv: $AUG_NVCC"; exit 11;; esac
cat > "$tmp/w.cu" <<'CU'
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include <nvjpeg.h>
extern "C" __global__ void k_axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void k_h2f(const __half *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __half2float(x[i]);
}
extern "C" int w_run(float a, const float *x, float *y, int n) {
  k_axpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
  cublasHandle_t h; if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return -1;
  cublasDestroy(h);
  nvjpegHandle_t j; if (nvjpegCreateSimple(&j) != NVJPEG_STATUS_SUCCESS) return -2;
  nvjpegDestroy(j);
  return (int)cudaGetLastError();
}
CU
incs=(); IFS=: read -ra ds <<<"$AUG_CUDA_INCLUDE"; for d in "${ds[@]}"; do incs+=(-I"$d"); done
t0=$SECONDS
"$AUG_NVCC" $GENCODE --fmad=false -Xcompiler -fPIC -shared "${incs[@]}" -I"$AUG_NVJPEG_INCLUDE" \
  "$tmp/w.cu" -o "$tmp/w.so" -L"$AUG_CUDA_LIBDIR" -cudart static \
  -L"$AUG_CUBLAS_LIBDIR" -l:libcublas.so.13 -L"$AUG_NVJPEG_LIBDIR" -l:libnvjpeg.so.13 \
  -Xlinker -rpath,"$AUG_CUBLAS_LIBDIR:$AUG_NVJPEG_LIBDIR" || exit 12
echo "nvcc build $((SECONDS - t0)) s"
# every header from the venv or the host compiler's own dirs
leaks=$("$AUG_NVCC" -M "${incs[@]}" -I"$AUG_NVJPEG_INCLUDE" "$tmp/w.cu" | tr ' \\' '\n\n' | grep '^/' \
        | grep -v -e "^$V/" -e '^/usr/include/' -e '^/usr/lib/gcc/' -e "^$tmp/" || true)
[ -z "$leaks" ] || { echo "headers from outside the venv:"; echo "$leaks"; exit 13; }
ldd "$tmp/w.so" > "$tmp/ldd.txt"
grep -q "libcublas.so.13 => $AUG_CUBLAS_LIBDIR/" "$tmp/ldd.txt" || { cat "$tmp/ldd.txt"; exit 14; }
grep -q "libnvjpeg.so.13 => $AUG_NVJPEG_LIBDIR/" "$tmp/ldd.txt" || { cat "$tmp/ldd.txt"; exit 14; }
! grep -q "libcudart" "$tmp/ldd.txt" || { echo "cudart linked dynamically"; exit 15; }
nm -D "$tmp/w.so" > "$tmp/nmd.txt"; nm "$tmp/w.so" > "$tmp/nm.txt"   # (no `nm | grep -q`: SIGPIPE)
grep -q " T w_run$" "$tmp/nmd.txt" || { echo "w_run not exported"; exit 15; }
grep -Eq " [tT] cudaGetLastError$" "$tmp/nm.txt" || { echo "static cudart not linked in"; exit 15; }
cat > "$tmp/h.cpp" <<'CPP'
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>
#include <nvjpeg.h>
#include <cstdio>
int main() { dim3 d(2, 3); __half h = __float2half_rn(1.5f);
  std::printf("%g %u %d\n", __half2float(h), d.y, NVJPEG_VER_MAJOR); return 0; }
CPP
g++ -std=c++17 "${incs[@]}" -I"$AUG_NVJPEG_INCLUDE" "$tmp/h.cpp" -o "$tmp/h" || exit 16
[ "$("$tmp/h")" = "1.5 3 13" ] || exit 16
python3 scripts/check_fatbin.py --cuobjdump "$AUG_CUOBJDUMP" "$tmp/w.so" > "$tmp/check.txt" \
  || { cat "$tmp/check.txt"; exit 17; }
t0=$SECONDS
PIP_NO_INDEX=1 scripts/cuda_toolchain.sh "$V" > "$tmp/wheel2.env" 2> "$tmp/wheel2.err" || exit 18
cmp -s "$tmp/wheel.env" "$tmp/wheel2.env" || exit 18
[ ! -s "$tmp/wheel2.err" ] || { cat "$tmp/wheel2.err"; exit 18; }
echo "second run $((SECONDS - t0)) s"
EOF
hide=0 runner=(bash)
py_real=$(readlink -f "$(command -v "${PYTHON:-python3}")")
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null \
   && [ "${py_real#/usr/local/}" = "$py_real" ]; then
  hide=1 runner=(unshare -m bash)
else
  echo "note: cannot hide /usr/local (needs root and unshare -m); the fresh-machine case only strips the environment"
fi
t0=$SECONDS; ok=1
"${runner[@]}" "$tmp/fresh.sh" "$ROOT" "$V" "$tmp" "$GENCODE" "$hide" > "$tmp/fresh.log" 2>&1 || ok=0
sed 's/^/    /' "$tmp/fresh.log"
[ $ok = 1 ] && { check_env "$tmp/wheel.env" wheels || ok=0; }
result "fresh machine$([ $hide = 1 ] && echo ' (/usr/local hidden)'): wheel nvcc builds sm_75..sm_100 + PTX, links static cudart + cuBLAS + nvJPEG, g++ host build, check_fatbin OK, offline rerun quiet ($((SECONDS - t0)) s)" $ok

echo "test_cuda_toolchain: whole self-test $((SECONDS - t_start)) s"
echo "test_cuda_toolchain: $passed passed, $failed failed"
[ "$failed" = 0 ]
