#!/bin/sh
# tests/c/check_docs_c.sh DOC LIBAUG INCLUDE_DIR [ARG...]
#
# Every ```c block of DOC (docs/c-api.md) is a complete program: compile each one
# with $CC (default cc) -std=c11 -Wall -Wextra -Werror $CFLAGS against INCLUDE_DIR, link it
# to LIBAUG (the built shared library, found at run time through an rpath to its
# directory) and run it with ARG... (the sample JPEG path). Stops at the first
# block that fails to compile or exits non-zero, naming the block by the heading
# above it. The environment passes through, so AUG_CUDA_BACKEND=emu runs the
# examples on the emulated cuda:0.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 DOC LIBAUG INCLUDE_DIR [ARG...]" >&2
  exit 2
fi
doc=$1 lib=$2 inc=$3
shift 3
cc=${CC:-cc}
[ -f "$doc" ] || { echo "check_docs_c: $doc does not exist" >&2; exit 1; }
[ -f "$lib" ] || { echo "check_docs_c: $lib does not exist (build the aug target first)" >&2; exit 1; }
libdir=$(cd "$(dirname "$lib")" && pwd)
lib=$libdir/$(basename "$lib")

work=$(mktemp -d "${TMPDIR:-/tmp}/check_docs_c.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

# Split the document: block N goes to $work/block_N.c, and line N of
# $work/headings is "N<TAB>heading above it (line L)".
awk -v dir="$work" '
  /^#+ / && !inblock { heading = $0; sub(/^#+ +/, "", heading) }
  /^```c[ \t]*$/ && !inblock { n++; inblock = 1; file = dir "/block_" n ".c"
                              printf "%d\t%s (line %d)\n", n, heading, NR > (dir "/headings")
                              printf "" > file; next }
  /^```/ && inblock { inblock = 0; close(file); next }
  inblock { print > file }
  END { if (inblock) { print "unterminated ```c block: " heading > "/dev/stderr"; exit 1 } }
' "$doc"

[ -s "$work/headings" ] || { echo "check_docs_c: no \`\`\`c blocks in $doc" >&2; exit 1; }
count=$(wc -l < "$work/headings" | tr -d ' ')

while IFS='	' read -r n heading; do
  src=$work/block_$n.c exe=$work/block_$n
  echo "== [$n/$count] $heading"
  # shellcheck disable=SC2086 # CFLAGS holds several flags (e.g. the sanitizers of the build)
  if ! "$cc" -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} -I"$inc" "$src" -o "$exe" "$lib" -Wl,-rpath,"$libdir" -lm; then
    echo "check_docs_c: FAILED to compile the block under \"$heading\" in $doc" >&2
    exit 1
  fi
  if ! "$exe" "$@"; then
    echo "check_docs_c: the block under \"$heading\" in $doc exited with an error" >&2
    exit 1
  fi
done < "$work/headings"
echo "check_docs_c: all $count C blocks of $doc compiled and ran"
