# sarfuse: the two set-up commands of the README.
#   make demo   install missing Debian packages, build, simulate + focus + analyse the default scene
#   make test   install missing Debian packages, build, run the whole test suite
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# Debian's Python (its python3-numpy, python3-pytest, pybind11-dev), whatever else is on PATH.
PYTHON ?= /usr/bin/python3
DEBIAN_PACKAGES := cmake ninja-build g++ pkg-config libfftw3-dev libcli11-dev nlohmann-json3-dev \
                   libpng-dev libmatio-dev libgtest-dev libvkfft-dev \
                   python3-dev pybind11-dev python3-numpy python3-pytest python3-venv python3-pip

.PHONY: all deps configure build demo test bench clean

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

configure: deps
	@[ -f $(BUILD_DIR)/build.ninja ] || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPython_EXECUTABLE=$(PYTHON)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	./$(BUILD_DIR)/sarfuse demo --out out/demo

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

bench: build
	./$(BUILD_DIR)/sarfuse bench --backend cpu --size 4096x4096

clean:
	rm -rf $(BUILD_DIR) out
