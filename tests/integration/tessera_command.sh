#!/usr/bin/env bash
# The `tessera` command end to end: every subcommand on the examples, and bad input (a
# missing, truncated or wrongly typed image, a bad parameter, a bad file, a bad command
# line) giving a clear message and a non-zero exit code, never a crash.
#
#   tests/integration/tessera_command.sh BUILD_DIR SOURCE_DIR
set -uo pipefail

build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
tessera="$build_dir/tools/tessera"
apps="$source_dir/apps"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessera-command.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect CODE SUBSTRING -- command...: the exit code and a substring of stdout+stderr.
expect() {
    local code=$1 text=$2
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [[ $rc -ne $code ]]; then
        echo "FAIL: exit code $rc, expected $code: $*"
        echo "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    elif [[ "$out" != *"$text"* ]]; then
        echo "FAIL: output lacks \"$text\": $*"
        echo "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    else
        echo "ok: $text"
    fi
}

sample="$apps/images/sample.png"

# Running, with the reference interpreter beside it, and writing every image format.
expect 0 "compiled and reference results: identical" -- \
    "$tessera" run "$apps/blur/blur.tsr" --input in="$sample" --output "$tmp/blur.png" --reference --runs 2
expect 0 "compiled and reference results: identical" -- \
    "$tessera" run "$apps/harris/harris.tsr" --input in="$sample" --param k=0.05 --output "$tmp/h.ppm" --reference --runs 1
expect 0 "wrote" -- "$tessera" reference "$apps/blur/blur.tsr" --input in="$tmp/blur.png" --output "$tmp/ref.ppm"
expect 0 "wrote" -- "$tessera" run "$apps/blur/blur.tsr" --input in="$tmp/ref.ppm" --output "$tmp/again.raw" --runs 1
# A PGM through the histogram (a 2-D input), and raw float data through matmul.
printf 'P5\n4 3\n255\n' > "$tmp/gray.pgm"
printf '\x00\x01\x02\x03\x03\x03\x07\x08\x09\x0a\xff\xff' >> "$tmp/gray.pgm"
expect 0 "identical" -- "$tessera" run "$apps/histogram/histogram.tsr" --input in="$tmp/gray.pgm" --size 256 \
    --output "$tmp/hist.raw" --reference --runs 1
count3=$(od -An -t d4 -j $((3 * 4)) -N 4 "$tmp/hist.raw" | tr -d ' ')
if [[ "$count3" != 3 ]]; then echo "FAIL: hist(3) is '$count3', expected 3"; failures=$((failures + 1)); fi
head -c $((48 * 48 * 4)) /dev/zero > "$tmp/a.raw"
expect 0 "identical" -- "$tessera" run "$apps/matmul/matmul.tsr" --input a="$tmp/a.raw:float32:48x48" \
    --input b="$tmp/a.raw:float32:48x48" --size 48,48 --reference --runs 1
# The schedule tiles the output by 24x32 with the default tail (ShiftInwards, as in Halide):
# a smaller output is a run-time error that says so.
expect 1 "use TailStrategy::GuardWithIf" -- "$tessera" run "$apps/matmul/matmul.tsr" --input a="$tmp/a.raw:float32:16x16" \
    --input b="$tmp/a.raw:float32:16x16" --size 16,16 --runs 1

# Ahead-of-time output of every kind, and a C program built from it.
expect 0 "writing" -- "$tessera" compile "$apps/unsharp/unsharp.tsr" -o "$tmp/unsharp" --emit c,h,o,stmt,html \
    --depfile "$tmp/unsharp.d"
for f in unsharp.c unsharp.h unsharp.o unsharp.stmt unsharp.html unsharp.d; do
    [[ -s "$tmp/$f" ]] || { echo "FAIL: $f not written"; failures=$((failures + 1)); }
done
grep -q "int unsharp(" "$tmp/unsharp.h" || { echo "FAIL: unsharp.h lacks int unsharp("; failures=$((failures + 1)); }
grep -q "Lowered loop nest" "$tmp/unsharp.html" || { echo "FAIL: the HTML lacks the loop nest"; failures=$((failures + 1)); }
expect 0 "" -- "$tessera" check "$apps/matmul/matmul.tsr"

# The validator (where it is built): blur proved whole (each check, with progress on
# stderr: one run, half a minute), --json is one object, a bad file is an error.
if ! "$tessera" validate "$apps/blur/blur.tsr" --max-operations 1000 2>&1 | grep -q "built without the validator"; then
    "$tessera" validate "$apps/blur/blur.tsr" > "$tmp/blur.validate" 2>&1
    rc=$?
    for text in "blur_y: Proved" "coverage: Proved" "races: Proved" "bounds: Proved" "values: Proved" \
        "tessera: checking coverage"; do
        if [[ $rc -ne 0 || "$(cat "$tmp/blur.validate")" != *"$text"* ]]; then
            echo "FAIL: tessera validate blur.tsr (exit code $rc) lacks \"$text\""
            sed 's/^/    /' "$tmp/blur.validate"
            failures=$((failures + 1))
        else
            echo "ok: $text"
        fi
    done
    expect 1 "cannot open" -- "$tessera" validate "$tmp/missing.tsr"
    expect 2 "validate needs a .tsr file" -- "$tessera" validate
    # ATL: the derivation, the lowering and the code proved (docs/atl.md, "Validation").
    expect 0 "atl rewrites: Proved" -- "$tessera" atl "$apps/atl_matmul/derived_matmul.atl" --validate
    expect 0 "atl lowering: Proved" -- "$tessera" atl "$apps/atl_matmul/tiled_matmul.atl" --validate-strict
    expect 2 "--max-operations takes a count" -- "$tessera" validate "$apps/blur/blur.tsr" --max-operations lots
    # matmul's fused parallel loop is modelled as the two loops it fuses; a tiny operation
    # limit gives Unknown, not an error.
    expect 0 "result: Proved" -- "$tessera" validate "$apps/matmul/matmul.tsr"
    expect 0 "the operation limit was reached" -- "$tessera" validate "$apps/matmul/matmul.tsr" --max-operations 1000
    # The demo pipeline (make demo): Halide's unsharp schedule, proved whole (a few minutes).
    expect 0 "unsharp: Proved" -- "$tessera" validate "$apps/unsharp/unsharp.tsr"
    # The other apps: harris proved whole, the histogram's data-dependent update Unknown
    # with the reason (every app is Proved or Unknown with a reason, never Refuted).
    expect 0 "corners: Proved" -- "$tessera" validate "$apps/harris/harris.tsr"
    expect 0 "values: Unknown (statement S0 (a store of hist to hist.tmp): update 0 of Func hist: the expression in(r.x, r.y) is not affine)" -- \
        "$tessera" validate "$apps/histogram/histogram.tsr"
    # Assumptions: a race the schedule allows (iterations r >= n all write h(n)) is refuted,
    # and gone under n >= 15; they are listed; contradictory ones are never Proved.
    printf 'input uint16 in[1]\nparam int32 n = 3\nrdom r(0, 16)\nfunc h(x) = uint16(0)\nh(min(r, n)) = in(r)\noutput h\nh.update(0).allow_race_conditions().parallel(r)\n' \
        > "$tmp/racy.tsr"
    expect 1 "races: Refuted" -- "$tessera" validate "$tmp/racy.tsr"
    expect 0 "races: Proved" -- "$tessera" validate "$tmp/racy.tsr" --assume 'n >= 15'
    expect 0 '{"pipeline": "h", "verdict": "Proved", "checks": [{"name": "coverage", "verdict": "Proved"' -- \
        "$tessera" validate "$tmp/racy.tsr" --assume 'n >= 15' --json
    expect 0 "assumed: h.extent.0 >= 1" -- "$tessera" validate "$tmp/racy.tsr" --assume 'n >= 15' --assume 'h.width() >= 1'
    expect 0 "the assumptions are contradictory" -- \
        "$tessera" validate "$apps/blur/blur.tsr" --assume 'in.width() < 0 && in.width() > 0'
    expect 1 "first refuted after: " -- "$tessera" validate "$tmp/racy.tsr" --each-pass
    # compile and run --validate: Refuted code is neither written nor run; --validate-strict
    # also stops on Unknown (a histogram's data-dependent stores).
    expect 1 "the compiled code is Refuted: nothing is written" -- \
        "$tessera" compile "$tmp/racy.tsr" -o "$tmp/racy" --validate
    if [[ -e "$tmp/racy.c" ]]; then
        echo "FAIL: compile --validate wrote the code it refuted"
        failures=$((failures + 1))
    fi
    expect 0 "writing $tmp/racy.c" -- "$tessera" compile "$tmp/racy.tsr" -o "$tmp/racy" --validate --assume 'n >= 15'
    expect 1 "not Proved (--validate-strict): nothing is written" -- \
        "$tessera" compile "$apps/histogram/histogram.tsr" -o "$tmp/hist" --validate-strict
    expect 1 "the compiled code is Refuted: nothing is run" -- \
        "$tessera" run "$tmp/racy.tsr" --size 16 --validate
    # Bad assumptions and numbers: a message naming the problem, never a crash.
    expect 1 "--assume:1:1: error: unknown name 'm'" -- "$tessera" validate "$apps/blur/blur.tsr" --assume 'm > 3'
    expect 1 "expected an expression" -- "$tessera" validate "$apps/blur/blur.tsr" --assume 'in.width() >'
    expect 1 "is not a condition" -- "$tessera" validate "$apps/blur/blur.tsr" --assume 'in.width() + 1'
    expect 1 "only the bounds of input 'in' can be used here" -- \
        "$tessera" validate "$apps/blur/blur.tsr" --assume 'in(0, 0, 0) > 3'
    expect 2 "--assume needs a value" -- "$tessera" validate "$apps/blur/blur.tsr" --assume
    expect 2 "--rlimit takes a count" -- "$tessera" validate "$apps/blur/blur.tsr" --rlimit -5
fi

# Bad input: clear messages, exit code 1.
expect 1 "cannot open the file" -- "$tessera" run "$apps/blur/blur.tsr" --input in="$tmp/nope.png"
head -c 300 "$sample" > "$tmp/truncated.png"
expect 1 "damaged or truncated" -- "$tessera" run "$apps/blur/blur.tsr" --input in="$tmp/truncated.png"
echo "not an image" > "$tmp/fake.png"
expect 1 "not a PNG file" -- "$tessera" run "$apps/blur/blur.tsr" --input in="$tmp/fake.png"
printf 'P5\n4 3\n255\n\x00\x01' > "$tmp/short.pgm"
expect 1 "truncated" -- "$tessera" run "$apps/histogram/histogram.tsr" --input in="$tmp/short.pgm" --size 256
expect 1 "holds float32 values, but input in is uint8" -- \
    "$tessera" run "$apps/blur/blur.tsr" --input in="$tmp/a.raw:float32:16x16"
expect 1 "the file is too short" -- "$tessera" run "$apps/matmul/matmul.tsr" --input a="$tmp/a.raw:float32:64x64" \
    --input b="$tmp/a.raw:float32:16x16" --size 16,16
expect 1 "has 3 dimensions (3 channels), but input in has 2" -- \
    "$tessera" run "$apps/histogram/histogram.tsr" --input in="$sample" --size 256
expect 1 "input 'in' is not given" -- "$tessera" run "$apps/blur/blur.tsr"
expect 1 "no input called 'image'" -- "$tessera" run "$apps/blur/blur.tsr" --input image="$sample"
expect 1 "parameter k has type float32; 'big' is not a value of it" -- \
    "$tessera" run "$apps/harris/harris.tsr" --input in="$sample" --param k=big
expect 1 "sigma" -- "$tessera" run "$apps/unsharp/unsharp.tsr" --input in="$sample" --param sigma=50 --runs 1
expect 1 "images hold uint8 or uint16" -- "$tessera" run "$apps/matmul/matmul.tsr" --input a="$tmp/a.raw:float32:48x48" \
    --input b="$tmp/a.raw:float32:48x48" --size 48,48 --output "$tmp/c.png" --runs 1
printf 'input uint8 in[2]\nfunc f(x, y) = in(x, y) +\nfunc g(x, y) = f(x, y)\ng.vectorize(z, 8)\noutput g\n' > "$tmp/bad.tsr"
expect 1 "bad.tsr:2:26: error: expected an expression" -- "$tessera" check "$tmp/bad.tsr"
expect 1 "cannot open the file" -- "$tessera" check "$tmp/missing.tsr"
printf 'input uint8 in[2]\nfunc f(x, y) = in(x, y)\noutput f\nf.vectorize(y, 4).vectorize(x, 4)\n' > "$tmp/sched.tsr"
expect 0 "" -- "$tessera" check "$tmp/sched.tsr"

# ATL programs (docs/atl.md): the example, a truncation of live data, a parse error.
expect 0 "largest difference from the reference interpreter: 0" -- "$tessera" atl "$apps/atl_matmul/tiled_matmul.atl"
expect 0 "rewrite separate jo: same meaning on 3 random inputs" -- "$tessera" atl "$apps/atl_matmul/derived_matmul.atl"
printf 'input v[4]\noutput = gen i < 4: v[i]\nrewrite interchange i\n' > "$tmp/step.atl"
expect 1 "step.atl:3:9: ATL rewrite \`interchange i\`: the loop over i has no loop directly inside it" -- "$tessera" atl "$tmp/step.atl"
printf 'input v[4]\noutput = trunc_r(1, gen i < 4: v[i])\n' > "$tmp/cut.atl"
expect 1 "ATL trunc_r 1: drops the last 1 element" -- "$tessera" atl "$tmp/cut.atl"
printf 'input v[4]\noutput = gen i < 4: w[i]\n' > "$tmp/name.atl"
expect 1 "name.atl:2:21: \`w\` is neither an input" -- "$tessera" atl "$tmp/name.atl"
expect 1 "cannot read" -- "$tessera" atl "$tmp/missing.atl"
expect 2 "atl needs a .atl file" -- "$tessera" atl

# Bad command lines: usage, exit code 2.
expect 2 "usage: tessera <command>" -- "$tessera"
expect 2 "unknown command 'frobnicate'" -- "$tessera" frobnicate
expect 2 "usage: tessera run" -- "$tessera" run --runs 0 "$apps/blur/blur.tsr"
expect 2 "compile needs -o OUT" -- "$tessera" compile "$apps/blur/blur.tsr"
expect 2 "unknown --emit kind 'pdf'" -- "$tessera" compile "$apps/blur/blur.tsr" -o "$tmp/x" --emit pdf
expect 0 "usage: tessera compile" -- "$tessera" compile --help

if [[ $failures -ne 0 ]]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "tessera_command: OK"
