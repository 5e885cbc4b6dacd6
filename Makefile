# sarfuse: the two set-up commands of the README.
#   make demo   install missing Debian packages, build, simulate + focus + analyse the default scene
#   make test   install missing Debian packages, build, run the whole test suite
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# Debian's Python (its python3-numpy, python3-pytest, pybind11-dev), whatever else is on PATH.
PYTHON ?= /usr/bin/python3
DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config libfftw3-dev libcli11-dev nlohmann-json3-dev \
                   libpng-dev libmatio-dev libgtest-dev libvkfft-dev libgdal-dev libtiff-dev libhdf5-dev zlib1g-dev libpugixml-dev gdal-bin hdf5-tools \
                   python3-dev pybind11-dev python3-numpy python3-pytest python3-venv python3-pip

MATHDX_VERSION := 25.6.0
MATHDX_DIR := .deps/mathdx-$(MATHDX_VERSION)

# Hardening (docs/reliability.md): the CPU suite under ASan + UBSan, and the reader fuzzers.
FUZZ_RUNS ?= 6000
FUZZ_PACKAGES := clang libclang-rt-14-dev libomp-14-dev
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan_suppressions.txt:print_suppressions=0

.PHONY: all deps fuzz-deps configure build demo test test-asan fuzz bench clean

all: build

deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "missing Debian packages:$$missing"; echo "run: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi
	@# With CUDA: NVIDIA MathDx's headers (cuFFTDx, the bench's peer), from PyPI's nvidia-mathdx wheel,
	@# unpacked into .deps/ (pip download only: nothing is installed into the system's Python).
	@if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null 2>&1; then \
	  [ -f $(MATHDX_DIR)/mathdx/include/cufftdx.hpp ] || { \
	    echo "fetching nvidia-mathdx $(MATHDX_VERSION) (cuFFTDx headers) from PyPI into .deps/"; \
	    $(PYTHON) -m pip download --quiet --no-deps --dest .deps/wheel nvidia-mathdx==$(MATHDX_VERSION) && \
	    $(PYTHON) -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
	      .deps/wheel/nvidia_mathdx-$(MATHDX_VERSION)-py3-none-any.whl .deps/unpacked && \
	    rm -rf $(MATHDX_DIR) && mv .deps/unpacked/nvidia $(MATHDX_DIR) && rm -rf .deps/wheel .deps/unpacked; \
	  } || echo "nvidia-mathdx unavailable: the bench's cuFFTDx peer is left out"; \
	fi

configure: deps
	@[ -f $(BUILD_DIR)/build.ninja ] || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPython_EXECUTABLE=$(PYTHON)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	./$(BUILD_DIR)/sarfuse demo --out out/demo

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-asan: deps
	@[ -f build-asan/build.ninja ] || cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSARFUSE_SANITIZE=ON -DSARFUSE_ENABLE_CUDA=OFF -DSARFUSE_BUILD_PYTHON=OFF
	cmake --build build-asan -j $(JOBS)
	$(SANITIZER_ENV) ctest --test-dir build-asan --output-on-failure -j $(JOBS)

fuzz-deps:
	@$(MAKE) --no-print-directory deps DEBIAN_PACKAGES="$(FUZZ_PACKAGES)"

# Each harness from the seed corpus and past findings, fixed seed and run count (deterministic); longer
# by hand: make fuzz FUZZ_RUNS=10000000. Findings land in build-fuzz/findings/ (copy them to
# tests/fuzz/regressions/<harness>/ once fixed).
fuzz: deps fuzz-deps
	@[ -f build-fuzz/build.ninja ] || CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSARFUSE_FUZZ=ON -DSARFUSE_ENABLE_CUDA=OFF -DSARFUSE_BUILD_PYTHON=OFF \
	  -DSARFUSE_BUILD_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS)
	@mkdir -p build-fuzz/findings; for h in npy params mat level0 s1_decoders; do \
	  rm -rf build-fuzz/corpus-$$h && mkdir -p build-fuzz/corpus-$$h; \
	  echo "== fuzz_$$h: $(FUZZ_RUNS) runs, seed 1"; \
	  ./build-fuzz/fuzz_$$h -seed=1 -runs=$(FUZZ_RUNS) -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
	    -print_final_stats=1 -artifact_prefix=build-fuzz/findings/$$h- build-fuzz/corpus-$$h \
	    tests/fuzz/corpus/$$h tests/fuzz/regressions/$$h > build-fuzz/fuzz_$$h.log 2>&1; rc=$$?; \
	  grep -E "^(#[0-9]+ *DONE|Done|stat::number_of_executed_units|==[0-9]+==ERROR)" build-fuzz/fuzz_$$h.log; \
	  if [ $$rc -ne 0 ]; then tail -n 40 build-fuzz/fuzz_$$h.log; exit 1; fi; done

bench: build
	./$(BUILD_DIR)/sarfuse bench --backend cpu --size 4096x4096

clean:
	rm -rf $(BUILD_DIR) build-asan build-fuzz out
