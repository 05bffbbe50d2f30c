# Tessera — convenience entry points over CMake presets.
#
#   make demo    install dependencies, configure, build, run the demo
#   make test    install dependencies, configure, build, run all tests
#
# Every target fails (non-zero exit) as soon as any step fails.

PRESET ?= default
JOBS   ?= 2
BUILD_DIR := build

.PHONY: all deps configure build demo test clean

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

clean:
	rm -rf $(BUILD_DIR)
