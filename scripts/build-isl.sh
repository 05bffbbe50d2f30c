#!/usr/bin/env bash
# Builds isl 0.25, the version of Debian 12's libisl-dev, from Debian's source package
# with isl's own small-integer arithmetic (imath with 32-bit small integers) instead of
# GMP, as a static library under .deps/ for the translation validator.
#
#   usage: scripts/build-isl.sh
#
# Why: the validator's polyhedra have small coefficients, and Debian's libisl, built on
# GMP, spends most of its time allocating and copying big integers (a profile of
# validating apps/unsharp: 38 % in GMP, 22 % in malloc and free). The same isl with
# small integers runs the same operations, so a verdict is the same with either library
# (the operation limit counts operations, not time); docs/validation.md gives the times.
#
# Idempotent: does nothing if the library is there. Never fatal: if the source cannot be
# fetched or built, CMake uses Debian's libisl-dev (installed by scripts/install-deps.sh).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=0.25
prefix="$root/.deps/isl-$version-imath"
if [[ -f "$prefix/lib/libisl.a" && -f "$prefix/include/isl/cpp.h" ]]; then
    echo "isl $version with small integers: present"
    exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

give_up() {
    echo "build-isl.sh: $1; the validator uses Debian's libisl-dev instead" >&2
    exit 0
}

command -v apt-get >/dev/null 2>&1 || give_up "apt-get not found"
echo "building isl $version with small integers into $prefix"

# The source package, through apt with a source list of its own (the machine's lists
# need not name source packages): apt checks it against the archive's signed index.
mkdir -p "$work/lists/partial" "$work/sources"
cat > "$work/sources/debian-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# (Short network timeouts: where the archive cannot be reached, the fallback comes soon.)
apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
             -o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
             -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -q)
apt-get "${apt_options[@]}" update >"$work/apt.log" 2>&1 || give_up "the source index could not be fetched"
(cd "$work" && apt-get "${apt_options[@]}" --download-only source isl >>"$work/apt.log" 2>&1) ||
    give_up "the source package isl could not be fetched"
orig=("$work"/isl_"$version".orig.tar.*)
[[ -f "${orig[0]}" ]] || give_up "the source package has no isl_$version.orig tarball"
tar -xf "${orig[0]}" -C "$work" || give_up "the source tarball could not be unpacked"

cd "$work/isl-$version" || give_up "the source tarball has no isl-$version directory"
./configure --prefix="$prefix" --with-int=imath-32 --disable-shared --enable-static --with-pic \
    CFLAGS="-O2" >"$work/configure.log" 2>&1 || give_up "configure failed (see $work/configure.log)"
make -j"$(nproc)" >"$work/make.log" 2>&1 || give_up "the build failed"
rm -rf "$prefix"
make install >"$work/install.log" 2>&1 || give_up "the installation failed"
echo "isl $version with small integers: built"
