# Tessera — convenience entry points over CMake presets.
#
#   make demo    install dependencies, configure, build, run the demo
#   make test    install dependencies, configure, build, run all tests
#   make bench   build and run the benchmarks
#
# Every target fails (non-zero exit) as soon as any step fails.

PRESET ?= default
JOBS   ?= 2
BUILD_DIR := build

.PHONY: all deps configure build demo test bench clean

all: build

deps:
	bash scripts/install-deps.sh

configure:
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET) --parallel $(JOBS)

# deps must finish before configuring, also under make -j, hence the
# sub-make rather than independent prerequisites.
demo: deps
	$(MAKE) --no-print-directory build
	@if [ -f apps/demo/demo.cpp ]; then \
	    echo "./$(BUILD_DIR)/apps/tessera_demo"; \
	    ./$(BUILD_DIR)/apps/tessera_demo; \
	else \
	    echo "no demo yet (apps/demo/demo.cpp does not exist)"; \
	fi

test: deps
	$(MAKE) --no-print-directory build
	ctest --preset $(PRESET)

# Benchmarks (not tests): compile time per pipeline; see bench/README.md.
bench: deps
	$(MAKE) --no-print-directory build
	cmake --build --preset $(PRESET) --target bench
	./$(BUILD_DIR)/bench/tessera_bench_compile_time

clean:
	rm -rf $(BUILD_DIR)
