#!/bin/sh
# tests/c/check_exports.sh LIBAUG INCLUDE_DIR: every function a public header
# declares with AUG_API must be exported by libaug.so (a definition in a file
# that does not include its public header silently gets hidden visibility).
set -eu
lib=$1 inc=$2
declared=$(grep -h 'AUG_API' "$inc"/*.h | grep -v '#define' | grep -o 'AUG_API[^;(]*(' | sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
missing=$(printf '%s\n' "$declared" | while read -r f; do printf '%s\n' "$exported" | grep -qx "$f" || echo "$f"; done)
if [ -n "$missing" ]; then
  echo "declared with AUG_API but not exported by $lib:"; echo "$missing"; exit 1
fi
echo "$(printf '%s\n' "$declared" | wc -l) public functions exported"
