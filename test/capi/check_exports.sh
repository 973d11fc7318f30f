#!/bin/sh
# Checks that a shared library exports only the C API: every defined dynamic symbol is
# tessera_* (usage: check_exports.sh path/to/libtessera.so).
set -eu
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{ print $NF }')
count=$(printf '%s\n' "$syms" | grep -c '^tessera_' || true)
others=$(printf '%s\n' "$syms" | grep -v '^tessera_' || true)
if [ -n "$others" ]; then
  echo "$lib exports symbols outside the C API:" >&2
  printf '%s\n' "$others" | head -n 50 >&2
  exit 1
fi
if [ "$count" -lt 40 ]; then
  echo "$lib exports only $count tessera_* symbols; the C API has more" >&2
  exit 1
fi
# Every function tessera.h declares is exported.
header=$(dirname "$0")/../../src/capi/tessera.h
missing=0
for f in $(grep -o 'tessera_[a-z0-9_]*(' "$header" | tr -d '(' | sort -u); do
  if ! printf '%s\n' "$syms" | grep -qx "$f"; then
    echo "declared in tessera.h but not exported: $f" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 1
echo "$lib: $count symbols, all tessera_*"
