#!/usr/bin/env bash
# The build enforces the layers of src/: configures tests/layering in a temporary directory
# and builds each probe, expecting the legal ones to build and the upward ones to fail for
# the right reason.
#
#   usage: run.sh SOURCE_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-layering.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cmake -S "$source_dir/tests/layering" -B "$tmp" -G Ninja -DTESSERA_SOURCE_DIR="$source_dir" >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log"; exit 1; }

failures=0
expect() {  # expect builds|fails TARGET [text the failure must contain]
    local want=$1 target=$2 text=${3:-}
    if cmake --build "$tmp" --target "$target" >"$tmp/$target.log" 2>&1; then
        got=builds
    else
        got=fails
    fi
    if [[ $got != "$want" ]]; then
        echo "FAIL: $target $got, expected it to be $want"; cat "$tmp/$target.log"; failures=$((failures + 1))
    elif [[ $want == fails && -n $text ]] && ! grep -q "$text" "$tmp/$target.log"; then
        echo "FAIL: $target fails, but not with \"$text\""; cat "$tmp/$target.log"; failures=$((failures + 1))
    else
        echo "ok: $target $got"
    fi
}

expect builds lower_includes_below
expect fails lower_includes_codegen "codegen/CodeGenC.h: No such file or directory"
expect fails lower_includes_driver "driver/JIT.h: No such file or directory"
expect builds lower_calls_nothing_above
expect fails lower_calls_codegen "undefined reference to"

exit $((failures > 0))
