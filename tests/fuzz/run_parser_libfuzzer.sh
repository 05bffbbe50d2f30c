#!/usr/bin/env bash
# Builds the .tsr parser's libFuzzer target with clang (the lexer and parser compiled in,
# instrumented; the rest of Tessera from the build's libtessera) and runs it briefly over
# the examples in apps/. Exits 77 (a skip for ctest) when clang or libFuzzer is missing.
#
#   tests/fuzz/run_parser_libfuzzer.sh BUILD_DIR SOURCE_DIR [SECONDS]
#
# For a long run: TESSERA_KEEP_TMP=1 and SECONDS=3600, then look at the crash-* files.
set -euo pipefail

build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
seconds=${3:-20}
cxx=${CLANGXX:-clang++}

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "run_parser_libfuzzer: $cxx not found (scripts/install-deps.sh installs clang); skipped"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-libfuzzer.XXXXXX")
cleanup() { [[ "${TESSERA_KEEP_TMP:-0}" == 1 ]] && echo "keeping $tmp" || rm -rf "$tmp"; }
trap cleanup EXIT

if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' \
        | "$cxx" -x c++ -fsanitize=fuzzer - -o "$tmp/probe" 2>/dev/null; then
    echo "run_parser_libfuzzer: $cxx cannot link libFuzzer (install libclang-rt-14-dev); skipped"
    exit 77
fi

echo "== build"
"$cxx" -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$source_dir/include" -I"$source_dir/src" \
    "$source_dir/tests/fuzz/tsr_parser_libfuzzer.cpp" "$source_dir/src/text/Lexer.cpp" \
    "$source_dir/src/text/Parser.cpp" \
    -L"$build_dir" -ltessera -Wl,-rpath,"$build_dir" -o "$tmp/tsr_parser_fuzzer"

mkdir -p "$tmp/corpus"
find "$source_dir/apps" "$source_dir/tests/integration/consumer" -name '*.tsr' -exec cp {} "$tmp/corpus/" \;

echo "== fuzz for $seconds s"
cd "$tmp"
# The lexer and parser are both in the program and in libtessera; the program's win.
ASAN_OPTIONS=detect_odr_violation=0:detect_leaks=0 \
    ./tsr_parser_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 corpus
