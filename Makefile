# Tessera — convenience entry points over CMake presets.
#
#   make demo    install dependencies, configure, build, run the demo (apps/unsharp)
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
# The demo: Halide's unsharp mask, written in .tsr (apps/unsharp/unsharp.tsr), run on the
# sample image that ships in apps/images/, compiled and interpreted side by side, then
# its compiled code proved equal to its algorithm by the translation validator
# (docs/validation.md; seconds on two cores).
DEMO_DIR := $(BUILD_DIR)/demo
demo: deps
	$(MAKE) --no-print-directory build
	@mkdir -p $(DEMO_DIR)
	./$(BUILD_DIR)/tools/tessera run apps/unsharp/unsharp.tsr --input in=apps/images/sample.png \
	    --output $(DEMO_DIR)/unsharp.png --reference
	./$(BUILD_DIR)/tools/tessera compile apps/unsharp/unsharp.tsr -o $(DEMO_DIR)/unsharp --emit c,h,stmt,html
	./$(BUILD_DIR)/tools/tessera validate apps/unsharp/unsharp.tsr
	@echo
	@echo "The sharpened image is $(DEMO_DIR)/unsharp.png (the input: apps/images/sample.png)."
	@echo "The generated C is $(DEMO_DIR)/unsharp.c; $(DEMO_DIR)/unsharp.html shows the loop nest."
	@echo "The validator's verdict is above (Proved: the code computes what the algorithm defines,"
	@echo "for every image size and parameter value the pipeline accepts)."
	@echo "Edit the schedule at the end of apps/unsharp/unsharp.tsr and run make demo again."

test: deps
	$(MAKE) --no-print-directory build
	ctest --preset $(PRESET)

# Benchmarks (not tests): compile time per pipeline, ATL against Tessera Funcs, Tessera side by side with Halide 14
# where it is installed (scripts/install-deps.sh --peers), quiet and with another process busy on
# the cores, and the translation validator's
# evaluation (docs/validation.md); see bench/README.md.
bench: deps
	$(MAKE) --no-print-directory build
	cmake --build --preset $(PRESET) --target bench
	./$(BUILD_DIR)/bench/tessera_bench_compile_time
	./$(BUILD_DIR)/bench/tessera_bench_atl
	if [ -x ./$(BUILD_DIR)/bench/tessera_bench_side_by_side ]; then \
	  TESSERA_BENCH_CONTENTION=1 ./$(BUILD_DIR)/bench/tessera_bench_side_by_side; \
	else \
	  echo "side_by_side: not built (Halide 14 is missing: scripts/install-deps.sh --peers)"; \
	fi
	if [ -x ./$(BUILD_DIR)/bench/tessera_bench_validation ]; then \
	  ./$(BUILD_DIR)/bench/tessera_bench_validation apps; \
	fi

clean:
	rm -rf $(BUILD_DIR)
