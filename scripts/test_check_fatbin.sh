#!/usr/bin/env bash
# scripts/test_check_fatbin.sh: self-test of scripts/check_fatbin.py.
#
# What: builds two tiny shared objects with nvcc for the project's targets (sm_75, sm_80, sm_90, sm_100
# SASS + compute_100 PTX) in a temp dir and asserts what the checker says about them:
#   clean.so (--fmad=false): integer, division/sqrt (FFMA/DFMA refinement steps that must be accepted),
#     __hmul_rn/__hadd_rn, an explicit fmaf() in a kernel named *fma*, 16 KiB static shared -> exit 0;
#   bad.so (default --fmad=true): a*b+c (contracted to FFMA in every target and fma.rn.f32 in the PTX),
#     a large per-thread array indexed at run time (stack frame / local memory), __hmul+__hadd (mul.f16 /
#     add.f16 without .rn in the PTX, fusable by the driver's JIT), a*b+c in a __noinline__ function
#     (reported on its calling kernel), and one clean kernel -> exit 1 with
#     one FAIL per offending kernel and none for the clean one;
#   regs.so: a kernel of ~100 registers without __launch_bounds__ (fails: 1024 threads would not fit) and
#     its twin with __launch_bounds__(256, 1) (passes), the --kernels table and --write/--check-registers
#     (a stale table fails; a kernel of at most 64 registers may be absent, a bigger one may not);
#   vec.so: contiguous fast paths for --vector-kernels (16-byte typed accesses pass; byte loads through
#     memcpy fail for float but not for uint8_t; one double per access fails) and --vector-require;
#   plus: a missing target, --targets-only (the wheel check's), --fma-allowed / --stack-allowed, a
#   host-only .so (exit 2).
# Why: the checker is the only guard of bit-exactness and resource rules on GPU-less machines; its
#   parsing of cuobjdump output must be proven against real nvcc output, both ways.
# How: nvcc and cuobjdump come from $AUG_NVCC / $AUG_CUOBJDUMP when set, else from
#   scripts/cuda_toolchain.sh ${AUG_VENV:-.venv} (which installs the cuobjdump/nvdisasm wheels if missing).
#   The two builds run in parallel; ~15 s on 2 cores. Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
t_start=$SECONDS

if [ -z "${AUG_NVCC:-}" ] || [ -z "${AUG_CUOBJDUMP:-}" ]; then
  eval "$(scripts/cuda_toolchain.sh "${AUG_VENV:-.venv}")"
fi
NVCC=$AUG_NVCC
CUOBJDUMP=$AUG_CUOBJDUMP
LIBDIR=${AUG_CUDA_LIBDIR%%:*}
PY=${PYTHON:-python3}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_check_fatbin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/clean.cu" <<'EOF'
#include <cuda_fp16.h>
#include <stdint.h>
extern "C" __global__ void k_add_sat(const uint8_t *a, const uint8_t *b, uint8_t *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { int s = a[i] + b[i]; c[i] = (uint8_t)(s > 255 ? 255 : s); }
}
extern "C" __global__ void k_div(const float *a, const float *b, float *c, const double *d, double *e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { c[i] = a[i] / b[i] + sqrtf(a[i]); e[i] = sqrt(d[i]) / d[i + 1]; }
}
extern "C" __global__ void k_half_rn(const __half *a, const __half *b, __half *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hadd_rn(__hmul_rn(a[i], b[i]), c[i]);
}
extern "C" __global__ void k_fma_explicit(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = fmaf(a[i], b[i], c[i]);
}
extern "C" __global__ void k_shared(const float *a, float *c) {
  __shared__ float s[4096];  /* 16 KiB */
  for (int j = threadIdx.x; j < 4096; j += blockDim.x) s[j] = a[j];
  __syncthreads();
  c[threadIdx.x] = __fadd_rn(__fmul_rn(s[4095 - threadIdx.x], 2.0f), s[threadIdx.x]);
}
EOF
cat > "$tmp/bad.cu" <<'EOF'
#include <cuda_fp16.h>
extern "C" __global__ void k_mad(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i] + c[i];
}
extern "C" __global__ void k_local(const int *idx, const int *a, int *out) {
  int buf[1024];
  for (int j = 0; j < 1024; j++) buf[j] = a[j] ^ j;
  out[threadIdx.x] = buf[idx[threadIdx.x] & 1023];
}
extern "C" __global__ void k_half(const __half *a, const __half *b, __half *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hadd(__hmul(a[i], b[i]), c[i]);
}
__device__ __noinline__ float mad_helper(float a, float b, float c) { return a * b + c; }
extern "C" __global__ void k_via_call(const float *a, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = mad_helper(a[i], a[i + 1], c[i]);
}
extern "C" __global__ void k_plain(const int *a, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * 3 + 1;
}
EOF
# 96 values live at once: ~100 registers per thread, too many for a block of 1024 threads
# (64 at most), unless __launch_bounds__ promises smaller blocks.
cat > "$tmp/regs.cu" <<'EOF'
#define HEAVY_BODY                                                                     \
  float v[96];                                                                         \
  _Pragma("unroll") for (int j = 0; j < 96; j++) v[j] = a[threadIdx.x + j * n];       \
  float s = 0.0f;                                                                      \
  _Pragma("unroll") for (int r = 1; r < 4; r++)                                        \
    _Pragma("unroll") for (int j = 0; j < 96; j++) s = __fadd_rn(s, __fmul_rn(v[j], v[(j + r) % 96])); \
  c[threadIdx.x] = s;
extern "C" __global__ void k_heavy(const float *a, float *c, int n) { HEAVY_BODY }
extern "C" __global__ void __launch_bounds__(256, 1) k_heavy_bounded(const float *a, float *c, int n) { HEAVY_BODY }
EOF
cat > "$tmp/vec.cu" <<'EOF'
#include <stdint.h>
#include <string.h>
/* contiguous fast paths (--vector-kernels 'k_vec'): 16-byte typed accesses (passes), the same with
 * the elements moved through memcpy from char* (byte loads: fails for float, not for uint8_t), and
 * one element per access (no 16-byte access: fails) */
template <class T> __global__ void k_vec_wide(const T *a, T *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ((uint4 *)b)[i] = ((const uint4 *)a)[i];
}
template <class T> __global__ void k_vec_bytes(const char *a, char *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T x[16 / sizeof(T)];
  if (i < n) { memcpy(x, a + 17 * i, sizeof x); x[0] += x[1]; ((uint4 *)b)[i] = *(uint4 *)x; }
}
template <class T> __global__ void k_vec_narrow(const T *a, T *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}
template __global__ void k_vec_wide<float>(const float *, float *, int);
template __global__ void k_vec_bytes<float>(const char *, char *, int);
template __global__ void k_vec_bytes<uint8_t>(const char *, char *, int);
template __global__ void k_vec_narrow<double>(const double *, double *, int);
EOF
printf 'int host_only(int x) { return x + 1; }\n' > "$tmp/host.c"

GENCODE=(-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80
         -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=sm_100
         -gencode arch=compute_100,code=compute_100)
build() {  # build NAME [nvcc flags...]
  local n=$1; shift
  "$NVCC" "${GENCODE[@]}" "$@" -Xcompiler -fPIC -shared -L"$LIBDIR" "$tmp/$n.cu" -o "$tmp/$n.so" \
    > "$tmp/$n.log" 2>&1 || { cat "$tmp/$n.log" >&2; return 1; }
}
t0=$SECONDS
build clean --fmad=false & p1=$!
build bad & p2=$!
build regs --fmad=false & p3=$!
build vec --fmad=false & p4=$!
cc -fPIC -shared "$tmp/host.c" -o "$tmp/host.so"
wait $p1 && wait $p2 && wait $p3 && wait $p4 || { echo "test_check_fatbin: nvcc build failed" >&2; exit 1; }
echo "built clean.so, bad.so, regs.so and vec.so in $((SECONDS - t0)) s"

passed=0 failed=0
check() {  # check NAME EXPECTED_RC [checker args...]; output in $out
  local name=$1 want=$2 rc=0; shift 2
  out=$("$PY" scripts/check_fatbin.py --cuobjdump "$CUOBJDUMP" "$@" 2>&1) || rc=$?
  if [ "$rc" = "$want" ]; then ok=1; else ok=0; echo "--- $name: exit $rc, expected $want"; fi
}
expect() {  # expect NAME: pass/fail the current case by $ok and the greps already applied
  if [ "$ok" = 1 ]; then passed=$((passed + 1)); echo "ok   $1"
  else failed=$((failed + 1)); echo "FAIL $1"; echo "$out" | sed 's/^/    | /'; fi
}
has() { grep -Eq -- "$1" <<<"$out" || { echo "--- missing: $1"; ok=0; }; }
hasnt() { ! grep -Eq -- "$1" <<<"$out" || { echo "--- unexpected: $1"; ok=0; }; }

t0=$SECONDS
check clean 0 "$tmp/clean.so"
has '^sm_75 +5 ' ; has '^sm_80 +5 '; has '^sm_90 +5 '; has '^sm_100 +5 '; has '^compute_100 +5 PTX'
has 'check_fatbin: OK'; has "FMA allowed by --fma-allowed 'fma' in: k_fma_explicit"
has '^sm_80 +5 +[0-9]+ +16384 +0 +0 +1 +[1-9][0-9]* +0$'   # shared 16 KiB, 1 allowed FMA, div/sqrt FMAs accepted
hasnt FAIL
expect "clean.so passes (division/sqrt refinement FMAs, explicit fma kernel, 16 KiB shared)"
t_clean=$((SECONDS - t0))

check bad 1 "$tmp/bad.so"
has '^FAIL fma +k_mad: SASS sm_75, sm_80, sm_90, sm_100: FFMA x1 each'
has '^FAIL fma +k_mad: .*PTX: fused fma\.rn\.f32 x1'
has '^FAIL stack +k_local: stack frame STACK bytes: sm_75 [0-9]+, sm_80 [0-9]+, sm_90 [0-9]+, sm_100 [0-9]+ \([0-9]+ LDL/STL'
has '^FAIL fma +k_half: SASS sm_75, sm_80, sm_90, sm_100: HFMA2 x1 each .*PTX: contractible add\.f16 x1, contractible mul\.f16 x1'
has '^FAIL fma +k_via_call: SASS .*PTX: fused fma\.rn\.f32 \(in _Z10mad_helperfff\) x1'
hasnt 'k_plain'; hasnt '^FAIL target'
has 'check_fatbin: 4 violation\(s\)'
expect "bad.so: contracted a*b+c (4 SASS targets + PTX, also in a called function), stack/local array, non-.rn half ops; clean kernel not blamed"

check missing-target 1 "$tmp/clean.so" --sass-targets sm_75,sm_86,sm_100 --ptx-targets compute_100,compute_120
has '^FAIL target sm_86: no SASS for sm_86 embedded \(SASS: sm_75, sm_80, sm_90, sm_100; PTX: compute_100\)'
has '^FAIL target compute_120: no PTX for compute_120'
has '^sm_90\* '
has 'check_fatbin: 2 violation\(s\)'
expect "missing SASS / PTX targets are reported"

check targets-only 0 "$tmp/bad.so" --targets-only
has '^check_fatbin: bad.so: SASS sm_75, sm_80, sm_90, sm_100; PTX compute_100$'; hasnt FAIL
expect "--targets-only: only the targets are checked (bad.so's FMAs and stack are not)"
check targets-only-missing 1 "$tmp/clean.so" --targets-only --sass-targets sm_75,sm_86 --ptx-targets compute_120
has '^FAIL target: sm_86, compute_120 not embedded'
expect "--targets-only: a missing SASS or PTX target fails"

check allowed-wide 1 "$tmp/bad.so" --fma-allowed 'k_mad|k_half' --stack-allowed 'k_loc'
hasnt '^FAIL (stack|local)'; hasnt '^FAIL fma +k_(mad|half)'; has '^FAIL fma +k_via_call'
has "FMA allowed .* in: k_half, k_mad$"; has "stack allowed by --stack-allowed 'k_loc' in: k_local$"
expect "--fma-allowed / --stack-allowed exempt matching kernels, the others stay"

check fma-allowed-narrow 1 "$tmp/clean.so" --fma-allowed '^nothing$'
has '^FAIL fma +k_fma_explicit: SASS sm_75, sm_80, sm_90, sm_100: FFMA x1 each'
hasnt 'k_div'
expect "an explicit fma kernel not matching --fma-allowed is reported; div/sqrt kernel still accepted"

check regs 1 "$tmp/regs.so" --kernels --write-registers "$tmp/regs.txt"
has '^FAIL regs +k_heavy: registers REG: sm_75 [0-9]+, sm_80 [0-9]+, sm_90 [0-9]+, sm_100 [0-9]+: a block of 1024 threads'
hasnt '^FAIL regs +k_heavy_bounded'
has '^k_heavy +1 .* 1024 +[0-9]+  FAIL$'; has '^k_heavy_bounded +1 .* 256 +[0-9]+$'
has 'check_fatbin: 1 violation\(s\)'
grep -Eq '^k_heavy_bounded [0-9]+$' "$tmp/regs.txt" || { echo "--- no k_heavy_bounded in --write-registers"; ok=0; }
expect "registers x threads: an unbounded heavy kernel fails at 1024 threads, its __launch_bounds__(256) twin passes"

check regs-stale 1 "$tmp/clean.so" --check-registers "$tmp/regs.txt"
has '^FAIL regs .*regs\.txt: the emulation.s register table is stale'
expect "--check-registers: a table that does not match the build is reported"

check regs-write 0 "$tmp/clean.so" --write-registers "$tmp/clean_regs.txt"
check regs-current 0 "$tmp/clean.so" --check-registers "$tmp/clean_regs.txt"
hasnt FAIL
expect "--check-registers: the table --write-registers wrote is current"

grep -v '^k_add_sat ' "$tmp/clean_regs.txt" > "$tmp/clean_regs_less.txt"
check regs-small-absent 0 "$tmp/clean.so" --check-registers "$tmp/clean_regs_less.txt"
hasnt FAIL
expect "--check-registers: a kernel of at most 64 registers may be absent (any block fits)"

grep -v '^k_heavy_bounded ' "$tmp/regs.txt" > "$tmp/regs_less.txt"
check regs-big-absent 1 "$tmp/regs.so" --check-registers "$tmp/regs_less.txt"
has '^FAIL regs .*regs_less\.txt: the emulation.s register table is stale'
expect "--check-registers: a kernel of more than 64 registers must be listed"

check vector 1 "$tmp/vec.so" --vector-kernels 'k_vec' --vector-require k_vec_wide,k_vec_missing
has '^FAIL vector void k_vec_bytes<float>.*byte-wide global load'
hasnt '^FAIL vector void k_vec_bytes<unsigned char>'
has '^FAIL vector void k_vec_narrow<double>.*no vector global load or store'
has '^FAIL vector k_vec_missing: no kernel k_vec_missing'
hasnt '^FAIL vector void k_vec_wide'
expect "--vector-kernels: byte-wide accesses of 2-byte+ types and missing vector ones fail; --vector-require"

check host-only 2 "$tmp/host.so"
has 'check_fatbin: .*(does not contain device code|holds no fatbinary)'
expect "a .so without device code is a tool error (exit 2)"

echo "checker: clean.so in ${t_clean} s; whole self-test $((SECONDS - t_start)) s"
echo "test_check_fatbin: $passed passed, $failed failed"
[ "$failed" = 0 ]
