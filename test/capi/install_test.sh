#!/bin/sh
# Installs the build into a temporary prefix, then compiles and runs a small C program
# with `pkg-config --cflags --libs tessera` from that prefix
# (usage: install_test.sh BUILD_DIR WORK_DIR SMOKE_C).
set -eu
build=$1
work=$2
smoke=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/tessera include/tessera.h; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
pc=$(find "$prefix" -name tessera.pc | head -n 1)
[ -n "$pc" ] || { echo "tessera.pc not installed" >&2; exit 1; }
lib=$(find "$prefix" -name 'libtessera.so.*' | head -n 1)
[ -n "$lib" ] || { echo "libtessera.so not installed" >&2; exit 1; }
libdir=$(dirname "$lib")
[ -e "$libdir/libtessera.so" ] || { echo "libtessera.so (link name) not installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs tessera)
echo "pkg-config: $flags"
cc -std=c11 -Wall -Werror -o "$work/smoke" "$smoke" $flags
LD_LIBRARY_PATH=$libdir "$work/smoke"
"$prefix/bin/tessera" --version
