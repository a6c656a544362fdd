# aug / augpy: the two set-up commands of the README, and their parts.
#   make demo  - install what is needed, build, run the batch augmentation demo (CPU by default; GPU when present)
#   make test  - install what is needed, build, run the C suite (plain and ASan+UBSan) and pytest
# Everything installs itself on a fresh Debian 12 machine as root.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
APT_PACKAGES := build-essential cmake pkg-config libcmocka-dev libopenblas-dev libturbojpeg0-dev libjpeg62-turbo-dev \
                librandom123-dev libjpeg-turbo-progs python3-dev python3-venv
# The libFuzzer targets (tests/fuzz) build with clang.
FUZZ_APT_PACKAGES := clang libclang-rt-14-dev
PY_TEST_DEPS := numpy pytest hypothesis opencv-python-headless pillow
PY_BUILD_DEPS := 'scikit-build-core>=0.10' pip

.PHONY: all deps build build-asan ctest ctest-asan fuzz-smoke venv pytest test demo bench clean

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

build-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DAUG_SANITIZE=address,undefined -DAUG_BUILD_BENCH=OFF
	cmake --build build-asan -j$(JOBS)

ctest: build
	cd build && ctest --output-on-failure -j$(JOBS)

# The suite once more under AddressSanitizer + UndefinedBehaviorSanitizer.
ctest-asan: build-asan
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS)

# .venv with augpy installed and the test dependencies.
venv: deps
	@[ -x $(VPY) ] || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade $(PY_BUILD_DEPS)
	$(VPY) -m pip install -q $(PY_TEST_DEPS)
	$(VPY) -m pip install -q --no-build-isolation .

pytest: venv
	cd tests/python && ../../$(VPY) -m pytest -q -p no:cacheprovider .

# Each fuzz target once over its seed corpus (crash regressions) under ASan+UBSan.
fuzz-smoke: deps
	tests/fuzz/run.sh --smoke

test: ctest ctest-asan fuzz-smoke pytest

# The main job: augment JPEG batches (augpy's sample set) and write out/contact_sheet.png.
demo: build venv
	./build/aug_example
	mkdir -p out && ./build/aug_augment_jpeg python/augpy/samples/sample_00.jpg out/augmented.ppm
	$(VPY) examples/demo.py
	$(VENV)/bin/augpy-demo --output out

bench: build venv
	for b in bench/bench_*.py; do echo "== $$b"; $(VPY) $$b || exit 1; done

clean:
	rm -rf build build-asan _skbuild dist *.egg-info
