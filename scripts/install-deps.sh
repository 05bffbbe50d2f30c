#!/usr/bin/env bash
# Installs the Debian 12 packages needed to build and test Tessera, then builds isl with
# small integers for the validator under .deps/ (scripts/build-isl.sh; not fatal).
# Idempotent: installs only what is missing and touches nothing otherwise.
#
#   usage: scripts/install-deps.sh [--peers]
#
#   --peers   also install the peer systems used by the benchmarks
#             (Halide 14, OpenBLAS); not needed to build or test Tessera.
set -euo pipefail

# Build and test: compilers, CMake + Ninja, GoogleTest/gmock, Google Benchmark,
# libpng (image I/O). Validator: isl (Presburger sets) and Z3.
packages=(
    cmake ninja-build g++ gcc make pkg-config
    libgtest-dev libgmock-dev libbenchmark-dev libpng-dev
    clang libclang-rt-14-dev
    libisl-dev libz3-dev
)
peer_packages=(libhalide14-0-dev libopenblas-dev)

usage() {
    sed -n '2,10s/^# \{0,1\}//p' "$0"
}

for arg in "$@"; do
    case "$arg" in
        --peers) packages+=("${peer_packages[@]}") ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-deps.sh: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done

if ! command -v dpkg >/dev/null 2>&1; then
    echo "install-deps.sh: dpkg not found; this script supports Debian 12." >&2
    echo "Install these packages (or equivalents) by hand: ${packages[*]}" >&2
    exit 1
fi

# A package counts as present only if fully installed: `dpkg -s` also succeeds
# for a removed package whose configuration files remain.
missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed$'; then
        missing+=("$pkg")
    fi
done

# isl with small integers for the validator, after the packages (it needs the compiler;
# Debian's libisl-dev stays the fallback): scripts/build-isl.sh.
build_isl() {
    bash "$(dirname "${BASH_SOURCE[0]}")/build-isl.sh"
}

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "all dependencies present"
    build_isl
    exit 0
fi

echo "installing missing packages: ${missing[*]}"

sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "install-deps.sh: not root and sudo is not available;" \
             "run as root or install: ${missing[*]}" >&2
        exit 1
    fi
fi

# `env` passes DEBIAN_FRONTEND through sudo, which may reset the environment.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
build_isl
