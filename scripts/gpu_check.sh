#!/usr/bin/env bash
# scripts/gpu_check.sh: the CUDA backend on a real NVIDIA GPU in 8 minutes or less (docs/cuda.md,
# "Checking a real GPU"). Three steps, run from the repository root:
#
#   prep     on a normal machine (Debian 12, with a package registry): gathers into .gpucarry/
#            (git-ignored, at most 64 MiB) what the GPU machine may lack: nvJPEG's header and library
#            from its PyPI wheel, and the Debian packages the build needs (unpacked there into a
#            private folder, never into /). `make gpu-check-prep`.
#   run      on the GPU machine, which may have no registry, in a copy of the checkout with .gpucarry/.
#            Logs and summary.txt go to $OUT (default gpu_check_out/); the summary is printed last.
#            Exit status 0 when every step passed. `make gpu-check`.
#   dry-run  the run step on this machine's emulated device (AUG_CUDA_BACKEND=emu) at tiny sizes,
#            over the trees `make cuda-emu` and `make cuda` built: every step's plumbing, so the script
#            cannot rot. `make gpu-check-dry`, part of `make test`.
#
# The run step's phases (a GPU_CHECK_DEADLINE of 480 s from the start skips what no longer fits):
#   0 env       nvidia-smi, nvcc, the toolchain's paths                                        ~5 s
#   1 build     nvcc sm_90-only libaug_cuda.so (the flags of `make cuda`, one target), and one
#               cmake tree: libaug, the CUDA C suites, augpy's extension for this python   ~90-150 s
#   2 static    check_fatbin.py on the sm_90 SASS: registers x threads of each kernel's
#               largest launch, local memory, stack, FMA   ~15 s on 16 cores (95 s on 2: the dry run's box is 240 s)
#   3 C suites  every test labelled cuda (CMake's AUG_CUDA_DEVICE_TESTS, test_cuda_nvjpeg) on cuda:0 ~60-90 s
#   4 probes    cuda_module_check.py; scripts/gpu_probe.py: nvJPEG against libjpeg-turbo's fast-upsampling decode,
#               back-to-back decodes behind a busy stream, 1024-thread launches, host waits  ~30 s
#   5 benches   bench/gpu/bench_*.py at full size: ratios against device copy and torch     <=225 s
#   6 pytest    the device subset with cuda:0 the default (torch interop, fork)              <=150 s
#   7 sanitizer compute-sanitizer racecheck and synccheck on the parity harness's image cases, if time is left <=60 s
set -u
MODE=${1:-run}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
CARRY=$ROOT/.gpucarry
CARRY_LIMIT_MB=64
# The Debian packages of the build (the Makefile's APT_PACKAGES that carry libraries) and their
# run-time libraries (libtiff-4.pc's Requires.private need libzstd's, liblzma's and libdeflate's
# .pc files; libtiff6's own libraries: libdeflate0, libjbig0, liblerc4, libwebp7; libavif15's AV1
# codecs: libdav1d6, libgav1-1 (with libabsl20220623), librav1e0, libsvtav1enc1, libaom3, and libyuv0).
DEBS="libturbojpeg0-dev libturbojpeg0 libjpeg62-turbo-dev libjpeg62-turbo libspng-dev libspng0 librandom123-dev
      libcmocka-dev libcmocka0 pkgconf pkgconf-bin libpkgconf3 zlib1g-dev libopenblas0-pthread libopenblas-dev
      libopenblas-pthread-dev libgfortran5 libquadmath0
      libwebp-dev libwebp7 libwebpdemux2 libwebpmux3 libtiff-dev libtiff6 libdeflate-dev libdeflate0 libjbig0 liblerc4
      libzstd-dev liblzma-dev
      libavif-dev libavif15 libdav1d6 libgav1-1 libabsl20220623 librav1e0 libsvtav1enc1 libaom3 libyuv0"

# ---------------------------------------------------------------------------------------- prep
if [ "$MODE" = prep ]; then
  [ -f build/cuda.env ] || { echo "gpu_check prep: build/cuda.env is missing: run 'make cuda-emu' first"; exit 1; }
  set -a; . build/cuda.env; set +a
  rm -rf "$CARRY"; mkdir -p "$CARRY/deb" "$CARRY/nvjpeg/include" "$CARRY/nvjpeg/lib"
  cp "$AUG_NVJPEG_INCLUDE/nvjpeg.h" "$CARRY/nvjpeg/include/" &&
    cp -L "$AUG_NVJPEG_LIBDIR/libnvjpeg.so.13" "$CARRY/nvjpeg/lib/" ||
    { echo "gpu_check prep: no nvJPEG under $AUG_NVJPEG_INCLUDE / $AUG_NVJPEG_LIBDIR"; exit 1; }
  # shellcheck disable=SC2086
  (cd "$CARRY/deb" && { apt-get download -qq $DEBS 2>/dev/null || { apt-get update -qq && apt-get download -qq $DEBS; }; }) ||
    { echo "gpu_check prep: apt-get download failed"; exit 1; }
  mb=$(du -sm "$CARRY" | cut -f1)
  { echo "prepared $(date -u +%FT%TZ) from $(git rev-parse --short HEAD 2>/dev/null)"; du -ah "$CARRY" | sort -k2; } > "$CARRY/MANIFEST"
  if [ "$mb" -gt "$CARRY_LIMIT_MB" ]; then echo "gpu_check prep: .gpucarry is $mb MiB, over $CARRY_LIMIT_MB MiB"; exit 1; fi
  echo "gpu_check prep: .gpucarry is $mb MiB. On the GPU machine: OUT=<folder> bash scripts/gpu_check.sh run"
  exit 0
fi
case "$MODE" in run) DRY=0 ;; dry-run) DRY=1 ;; *) echo "usage: $0 prep|run|dry-run"; exit 2 ;; esac

# ------------------------------------------------------------------------------------- helpers
OUT=${OUT:-$ROOT/gpu_check_out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
DEADLINE=${GPU_CHECK_DEADLINE:-480}
S=$OUT/summary.txt; : > "$S"
FAILS=0
note() { echo "$*" | tee -a "$S"; }
fail() { FAILS=$((FAILS + 1)); note "FAIL $*"; }
left() { echo $((DEADLINE - SECONDS)); }
# tbox SECS LOG cmd...: cmd with a timeout that never passes the deadline, output appended to LOG
tbox() {
  local want=$1 log=$2 l; shift 2; l=$(left)
  if [ "$l" -lt 15 ]; then echo "SKIPPED (deadline): $*" >> "$log"; return 124; fi
  [ "$want" -gt "$l" ] && want=$l
  echo "### $(date +%T) [$want s] $*" >> "$log"
  timeout -k 5 "$want" "$@" >> "$log" 2>&1; local rc=$?
  echo "### rc=$rc" >> "$log"; return $rc
}
# step NAME RC: one summary line, a failure counted
step() { if [ "$2" = 0 ]; then note "ok   $1"; elif [ "$2" = 124 ]; then fail "$1 (timed out or skipped at the deadline)"; else fail "$1 (rc=$2)"; fi; }
first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return 0; }; done; return 1; }
# carried_debs DIR: the Debian packages of .gpucarry unpacked into DIR (never into /), and the
# build pointed at them (CMAKE_DEPS, pkg-config, the loader's path)
CMAKE_DEPS=()
carried_debs() {
  ls "$CARRY"/deb/*.deb > /dev/null 2>&1 || return 1
  local d ml=$1/usr/lib/x86_64-linux-gnu
  rm -rf "$1"; mkdir -p "$1"
  for d in "$CARRY"/deb/*.deb; do dpkg-deb -x "$d" "$1" || return 1; done
  export LD_LIBRARY_PATH=$ml:$ml/openblas-pthread:${LD_LIBRARY_PATH:-} PKG_CONFIG_SYSROOT_DIR=$1
  export PKG_CONFIG_LIBDIR=$ml/pkgconfig:$1/usr/share/pkgconfig
  # the carried headers before the machine's own: pkg-config drops -I/usr/include (a "system"
  # folder) even under a sysroot, and jconfig.h sits in the multiarch folder, so without these
  # the second H200 run compiled Ubuntu's jpeglib.h (JPEG_LIB_VERSION 80) against the carried
  # libjpeg.so.62: "Wrong JPEG library version: library is 62, caller expects 80"
  local inc="-isystem $1/usr/include/x86_64-linux-gnu -isystem $1/usr/include"
  CMAKE_DEPS=(-DCMAKE_PREFIX_PATH="$1/usr" -DCMAKE_INCLUDE_PATH="$1/usr/include" -DPKG_CONFIG_EXECUTABLE="$1/usr/bin/pkgconf"
              -DCMAKE_C_FLAGS="$inc" -DCMAKE_CXX_FLAGS="$inc")
}
JOBS=$(nproc)
export PYTHONUNBUFFERED=1

# ---------------------------------------------------------------------------------------- 0 env
E=$OUT/env.txt
{ date; uname -a; nvidia-smi || echo "no nvidia-smi"; git log -1 --format='%h %s' 2>/dev/null
  command -v nvcc && nvcc --version; echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"; } > "$E" 2>&1
if [ "$DRY" = 1 ]; then
  # this machine: the trees of `make cuda-emu` (build/) and `make cuda` (build-nvcc/), .venv's python
  PY=${GPU_CHECK_PYTHON:-$ROOT/.venv/bin/python}
  set -a; . build/cuda.env; set +a
  MODULE=$ROOT/build/libaug_cuda_emu.so; FATBIN=$ROOT/build-nvcc/libaug_cuda.so; HOST=$ROOT/build
  CUOBJDUMP=$AUG_CUOBJDUMP; NVDISASM=$AUG_NVDISASM
  # the emulator's nvJPEG stand-in (tests/cuda_emu/emu_nvjpeg.cpp): the decoder's nvJPEG path runs
  export AUG_CUDA_BACKEND=emu AUG_EMU_NVJPEG=1
  note "== gpu_check dry-run $(date +%F' '%T) on the emulated device (tiny sizes; the figures mean nothing)"
else
  PY=${GPU_CHECK_PYTHON:-python3}
  NVCC=$(command -v nvcc || first /usr/local/cuda/bin/nvcc)
  CUDA_HOME=$(dirname "$(dirname "${NVCC:-/usr/local/cuda/bin/nvcc}")")
  PYSITE=$($PY -c 'import site; print(site.getsitepackages()[0])')
  CUDART_A=$(first "$CUDA_HOME"/lib64/libcudart_static.a "$CUDA_HOME"/targets/x86_64-linux/lib/libcudart_static.a \
                   "$PYSITE"/nvidia/cu13/lib/libcudart_static.a)
  CUBLAS_SO=$(first "$CUDA_HOME"/lib64/libcublas.so.13 "$CUDA_HOME"/targets/x86_64-linux/lib/libcublas.so.13 \
                    "$PYSITE"/nvidia/cu13/lib/libcublas.so.13 "$PYSITE"/nvidia/cublas/lib/libcublas.so.13)
  NVJPEG_H=$(first "$CUDA_HOME"/include/nvjpeg.h "$CARRY"/nvjpeg/include/nvjpeg.h)
  NVJPEG_SO=$(first "$CUDA_HOME"/lib64/libnvjpeg.so.13 "$PYSITE"/nvidia/cu13/lib/libnvjpeg.so.13 "$CARRY"/nvjpeg/lib/libnvjpeg.so.13)
  CUOBJDUMP=$(command -v cuobjdump || first "$CUDA_HOME"/bin/cuobjdump)
  NVDISASM=$(command -v nvdisasm || first "$CUDA_HOME"/bin/nvdisasm)
  echo "NVCC=$NVCC CUDART_A=$CUDART_A CUBLAS_SO=$CUBLAS_SO NVJPEG_H=$NVJPEG_H NVJPEG_SO=$NVJPEG_SO" >> "$E"
  note "== gpu_check $(date +%F' '%T) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  for v in NVCC CUDART_A CUBLAS_SO NVJPEG_H NVJPEG_SO CUOBJDUMP; do [ -n "${!v}" ] || fail "env: $v not found (env.txt)"; done
  export AUG_NVJPEG_LIBRARY=$NVJPEG_SO AUG_CUBLAS_LIBRARY=$CUBLAS_SO AUG_CUDA_BACKEND=cuda
  BUILD=$ROOT/build-gpu; HOST=$BUILD/host; MODULE=$HOST/libaug_cuda.so; FATBIN=$MODULE
  carried_debs "$BUILD/sysroot"
fi
export AUG_CUDA_MODULE=$MODULE AUG_REQUIRE_CUDA=1
FMA=$(sed -n 's/^CUDA_FMA_ALLOWED := //p' Makefile); STK=$(sed -n 's/^CUDA_STACK_ALLOWED := //p' Makefile)
VEC=$(sed -n 's/^CUDA_VECTOR_KERNELS := //p' Makefile); VREQ=$(sed -n 's/^CUDA_VECTOR_REQUIRE := //p' Makefile)

# -------------------------------------------------------------------------------------- 1 build
B=$OUT/build.log; : > "$B"
if [ "$DRY" = 1 ]; then
  T0=$SECONDS
  tbox 300 "$B" cmake --build "$HOST" -j "$JOBS"; step "build: the emulated module and the C suites (build/, $((SECONDS - T0)) s)" $?
  # what the run step's build takes from .gpucarry: a configure against the carried packages alone
  (carried_debs "$ROOT/build-gpu-dry/sysroot" || { echo "no .gpucarry/deb: run make gpu-check-prep"; exit 1; }
   tbox 120 "$B" cmake -S . -B "$ROOT/build-gpu-dry/host" -DCMAKE_BUILD_TYPE=Release -DAUG_BUILD_BENCH=OFF \
     -DAUG_BUILD_PYTHON=OFF "${CMAKE_DEPS[@]}" || exit 1
   for v in TURBOJPEG_INCLUDE_DIRS SPNG_INCLUDE_DIRS WEBP_INCLUDE_DIRS TIFF_INCLUDE_DIRS AVIF_INCLUDE_DIRS AUG_RANDOM123_INCLUDE CMOCKA_INCLUDE CMOCKA_LIB; do
     grep -q "^$v.*=$ROOT/build-gpu-dry/sysroot" "$ROOT/build-gpu-dry/host/CMakeCache.txt" ||
       { echo "$v is not taken from .gpucarry: $(grep "^$v" "$ROOT/build-gpu-dry/host/CMakeCache.txt")"; exit 1; }
   done) >> "$B" 2>&1
  step "the run step's configure against the carried packages alone (.gpucarry/deb)" $?
else
  # one cmake tree: the module for sm_90 alone (CMakeLists.txt's nvcc rule, AUG_CUDA_ARCHS), libaug,
  # the CUDA C suites on that module (AUG_TEST_ON_GPU) and augpy's extension for this python
  T0=$SECONDS
  configure() {
    tbox 120 "$B" cmake -S . -B "$HOST" -DCMAKE_BUILD_TYPE=Release -DAUG_BUILD_BENCH=OFF -DAUG_BUILD_TESTS=ON \
      -DAUG_BUILD_PYTHON="$1" -DPython_EXECUTABLE="$(command -v "$PY")" -DAUG_NVCC="$NVCC" -DAUG_CUDA_ARCHS="sm_90;compute_90" \
      -DAUG_CUDA_LIBDIR="$(dirname "$CUDART_A")" -DAUG_CUBLAS_LIBDIR="$(dirname "$CUBLAS_SO")" \
      -DAUG_NVJPEG_INCLUDE="$(dirname "$NVJPEG_H")" -DAUG_NVJPEG_LIBDIR="$(dirname "$NVJPEG_SO")" \
      -DAUG_TEST_ON_GPU=ON "${CMAKE_DEPS[@]}"
  }
  # without Python's headers for this interpreter, the C side alone (the python steps then fail)
  configure ON || { fail "configure with augpy's extension (Python headers for $PY?): build.log"; configure OFF; }
  tbox 300 "$B" cmake --build "$HOST" -j "$JOBS" --target aug_cuda
  rc=$?; step "build: the nvcc module for sm_90 ($((SECONDS - T0)) s)" $rc
  [ "$rc" = 0 ] || { note "the module did not build: nothing else can run (build.log)"; cat "$S"; exit 1; }
  T0=$SECONDS
  tbox 300 "$B" cmake --build "$HOST" -j "$JOBS" && rm -rf "$BUILD/py" && mkdir -p "$BUILD/py" &&
    cp -r python/augpy "$BUILD/py/" && rm -rf "$BUILD/py/augpy/_augpy" && cp "$HOST"/python/_augpy*.so "$BUILD/py/augpy/"
  step "build: libaug, the C suites, augpy ($((SECONDS - T0)) s)" $?
  export PYTHONPATH=$BUILD/py
fi

# ----------------------------------------------------------------------------- 2 static checks
R=$OUT/resources.txt; : > "$R"
if [ -f "$FATBIN" ]; then
  # the PTX is what tells the checker each kernel's __launch_bounds__ (.maxntid) and that a division's
  # FMAs are its expansion: without it every bounded kernel reads as a 1024-thread one (68 false
  # violations on the first H200 run)
  tbox 240 "$R" "$PY" scripts/check_fatbin.py --cuobjdump "$CUOBJDUMP" --nvdisasm "$NVDISASM" --sass-targets sm_90 \
    --ptx-targets "$([ "$DRY" = 1 ] && echo compute_100 || echo compute_90)" --fma-allowed "$FMA" --stack-allowed "$STK" \
    --vector-kernels "$VEC" --vector-require "$VREQ" --kernels "$FATBIN"
  step "check_fatbin (sm_90: resources, local memory, stack, FMA, vector fast paths)" $?
else
  fail "check_fatbin: $FATBIN is missing$([ "$DRY" = 1 ] && echo ' (make cuda builds it)')"
fi

# ---------------------------------------------------------------------------------- 3 C suites
C=$OUT/ctest.log; : > "$C"
CT=(-L cuda); [ "$DRY" = 1 ] && CT+=(-R "${GPU_CHECK_CTEST:-test_cuda_faults|test_cuda_nvjpeg}")
# the CPU decoder's own suites first: a header/library mismatch of the carried packages fails here by name
(cd "$HOST" && tbox 60 "$C" ctest --output-on-failure -R '^(test_jpeg|test_jpeg_region|test_png_rrc|test_formats|test_avif)$'); rc=$?
step "CPU JPEG/PNG/WebP/TIFF/AVIF suites (the carried headers match the carried libraries)" $rc
(cd "$HOST" && tbox 150 "$C" ctest --output-on-failure "${CT[@]}"); rc=$?
step "C suites on cuda:0: $(grep -Eo '[0-9]+% tests passed.*' "$C" | tail -1)" $rc
grep -E "\*\*\*Failed|FAILED|differ" "$C" | head -20 >> "$S"

# ------------------------------------------------------------------------------------- 4 probes
P=$OUT/probe.log; : > "$P"
if [ "$DRY" = 1 ]; then
  tbox 60 "$P" "$PY" scripts/gpu_probe.py --small --expect-engine nvjpeg; step "probes (gpu_probe.py --small)" $?
else
  tbox 60 "$P" env AUG_CUDA_MODULE="$MODULE" "$PY" tests/python/cuda_module_check.py; step "cuda_module_check" $?
  tbox 120 "$P" "$PY" scripts/gpu_probe.py --expect-engine nvjpeg; step "probes (gpu_probe.py)" $?
fi
grep -E "^engine:|^decode:|^race|^threads|^hostwait|^NOTE|^  - " "$P" >> "$S"

# --------------------------------------------------------------------------------- 5 benchmarks
BL=$OUT/bench.log; : > "$BL"
for spec in "50 elementwise --reps 20 --rounds 3" "35 reduce --reps 10 --rounds 3" "45 image --reps 5 --rounds 2" \
            "45 decode --reps 1 --rounds 2" "50 pipeline --reps 2 --rounds 2"; do
  set -- $spec; cap=$1 b=$2; shift 2
  [ "$DRY" = 1 ] && set -- --smoke
  (cd bench/gpu && tbox "$cap" "$BL" "$PY" "bench_$b.py" "$@"); step "bench_$b" $?
done
[ "$DRY" = 1 ] || grep -E "GB/s|img/s|images/s|x copy|ratio|torch" "$BL" | head -40 >> "$S"

# ------------------------------------------------------------------------------ 6 pytest subset
Y=$OUT/pytest.log; : > "$Y"
PT=(test_device.py test_transfer.py test_dlpack.py test_torch_adapter.py test_jpeg.py test_reduce.py test_warp.py
    test_blur.py test_math.py test_random.py test_normalize.py test_colour.py test_image_pipeline.py test_fork.py)
[ "$DRY" = 1 ] && PT=(test_device.py)
PTMAX=$(( $(left) - 70 )); [ "$PTMAX" -gt 150 ] && PTMAX=150; [ "$PTMAX" -lt 20 ] && PTMAX=20
(cd tests/python && tbox "$PTMAX" "$Y" "$PY" -m pytest -q -p no:cacheprovider -rfE "${PT[@]}"); rc=$?
step "pytest (cuda:0 the default): $(grep -E '[0-9]+ (passed|failed)' "$Y" | tail -1)" $rc
grep -E "^(FAILED|ERROR) " "$Y" | head -30 >> "$S"
# the rest of the suite that reaches the device, while time is left before the sanitizer's minute
PT2=(test_jpeg_roi.py test_png.py test_formats.py test_avif.py test_resize.py test_noise.py test_colour_lighting.py test_lighting.py test_ops.py
     test_indexing.py test_tensor.py test_tensor_methods.py test_loader.py test_image_views.py test_functional.py
     test_errors.py test_layout.py test_targets.py test_dali_regressions.py test_dali_rrc.py test_module_funcs.py)
PTMAX=$(( $(left) - 70 ))
if [ "$DRY" = 0 ] && [ "$PTMAX" -ge 30 ]; then
  Y2=$OUT/pytest_more.log; : > "$Y2"
  (cd tests/python && tbox "$PTMAX" "$Y2" "$PY" -m pytest -q -p no:cacheprovider -rfE "${PT2[@]}"); rc=$?
  step "pytest, the rest that reaches the device: $(grep -E '[0-9]+ (passed|failed)' "$Y2" | tail -1)" $rc
  grep -E "^(FAILED|ERROR) " "$Y2" | head -30 >> "$S"
fi

# --------------------------------------------------------------------------- 7 sanitizer (if time)
if [ "$DRY" = 0 ] && [ "$(left)" -gt 60 ] && command -v compute-sanitizer > /dev/null; then
  for tool in racecheck synccheck; do
    (cd "$HOST" && AUG_PARITY_FILTER=lighting/,blur/,warp/ tbox 30 "$C" compute-sanitizer --tool $tool \
       --error-exitcode 9 ./test_cuda_parity)
    step "compute-sanitizer $tool test_cuda_parity (lighting, blur, warp)" $?
  done
else
  note "--   compute-sanitizer: not run ($([ "$DRY" = 1 ] && echo 'dry run' || echo "$(left) s left or no compute-sanitizer"))"
fi

note "== $([ "$FAILS" = 0 ] && echo "all passed" || echo "$FAILS failed") in $SECONDS s (logs: $OUT)"
echo; cat "$S"
[ "$FAILS" = 0 ]
