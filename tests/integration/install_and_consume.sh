#!/usr/bin/env bash
# Installs a built Tessera into a temporary prefix, then configures, builds and
# runs tests/integration/consumer against that prefix with find_package().
#
#   usage: install_and_consume.sh BUILD_DIR SOURCE_DIR
#
# Exits non-zero on any failure. Set TESSERA_KEEP_TMP=1 to keep the temporary
# directory for inspection.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2
    exit 2
fi

build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-consume.XXXXXX")
cleanup() {
    if [[ "${TESSERA_KEEP_TMP:-0}" == 1 ]]; then
        echo "keeping $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

prefix="$tmp/prefix"

echo "== install into $prefix"
cmake --install "$build_dir" --prefix "$prefix"

# The umbrella header and the package must be where consumers look for them.
if [[ ! -f "$prefix/include/tessera/tessera.h" ]]; then
    echo "error: include/tessera/tessera.h was not installed" >&2
    exit 1
fi
config=$(find "$prefix" -path '*/cmake/Tessera/TesseraConfig.cmake' -print -quit)
if [[ -z "$config" ]]; then
    echo "error: TesseraConfig.cmake was not installed" >&2
    exit 1
fi

echo "== configure consumer"
# Package registries are disabled so that only the fresh prefix can satisfy
# find_package(Tessera).
# A copy of the consumer, so that the test can touch its files.
cp -r "$source_dir/tests/integration/consumer" "$tmp/src"
cmake -S "$tmp/src" -B "$tmp/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF

found_dir=$(sed -n 's/^Tessera_DIR:PATH=//p' "$tmp/build/CMakeCache.txt")
if [[ "$found_dir" != "$prefix"/* ]]; then
    echo "error: find_package(Tessera) used '$found_dir', not the prefix $prefix" >&2
    exit 1
fi

echo "== build consumer"
build_log=$(cmake --build "$tmp/build" --verbose 2>&1) || { echo "$build_log"; exit 1; }
# TARGET x86-64-linux-sse41 of box.tsr reached the C compiler, and only for box_sum.c.
if ! grep "box_sum.c" <<<"$build_log" | grep -q -- "-msse4.1"; then
    echo "error: box_sum.c was not compiled with its target's flags:" >&2
    echo "$build_log" >&2
    exit 1
fi
if grep "brighten.c" <<<"$build_log" | grep -q -- "-msse4.1"; then
    echo "error: brighten.c got box.tsr's target flags" >&2
    exit 1
fi

# The consumer finds the installed shared library through the build RPATH that
# CMake records for imported libraries outside system directories; no
# LD_LIBRARY_PATH is set, so a broken package would show up here.
echo "== run consumer"
"$tmp/build/consumer"
"$tmp/build/consumer_pipelines"
"$tmp/build/consumer_generator" -g invert -o "$tmp/generated" -e c_source,c_header vector_width=16
for f in invert.c invert.h; do
    if [[ ! -s "$tmp/generated/$f" ]]; then
        echo "error: the generator program did not write $f" >&2
        exit 1
    fi
done
# Tessera::validator, installed and exported where it was built (isl and Z3 found).
if compgen -G "$prefix/lib*/libtessera_validator*" >/dev/null; then
    "$tmp/build/consumer_validate"
fi

echo "== pkg-config"
pc=$(find "$prefix" -name tessera.pc -print -quit)
if [[ -z "$pc" ]]; then
    echo "error: tessera.pc was not installed" >&2
    exit 1
fi
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs tessera)
echo "$flags"
# The flags build a program against the installed library.
"${CXX:-c++}" -x c++ "$tmp/src/main.cpp" $flags -Wl,-rpath,"$prefix/lib" -o "$tmp/consumer_pc"
"$tmp/consumer_pc"

echo "== a pipeline is regenerated when its .tsr file changes, and only then"
if ! cmake --build "$tmp/build" 2>&1 | grep -q "no work to do"; then
    echo "error: a second build with nothing changed did work" >&2
    exit 1
fi
sleep 1
touch "$tmp/src/brighten.tsr"
rebuild=$(cmake --build "$tmp/build" 2>&1)
if ! grep -q "compiling brighten.tsr" <<<"$rebuild" || grep -q "compiling box.tsr" <<<"$rebuild"; then
    echo "error: touching brighten.tsr did not regenerate exactly brighten.c:" >&2
    echo "$rebuild" >&2
    exit 1
fi
"$tmp/build/consumer_pipelines"
echo "install_and_consume: OK"
