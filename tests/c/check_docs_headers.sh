#!/bin/sh
# tests/c/check_docs_headers.sh DOC INCLUDE_DIR
#
# docs/c-api.md covers every public header: each INCLUDE_DIR/<name>.h has a
# "## <name>.h" section in DOC, and every function the header declares AUG_API
# is named (as a whole word) in that section or in a page of DOC's folder the
# section links to (its family's page, e.g. colour.md, which documents the op
# for users). Lists every miss, then fails.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 DOC INCLUDE_DIR" >&2
  exit 2
fi
doc=$1 inc=$2
[ -f "$doc" ] || { echo "check_docs_headers: $doc does not exist" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/check_docs_headers.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

fail=0 nheaders=0 nfuncs=0
for h in "$inc"/*.h; do
  [ -f "$h" ] || continue
  name=$(basename "$h")
  nheaders=$((nheaders + 1))
  # the section: from "## name.h" (alone or followed by ':' or a space) to the next "## " heading
  awk -v want="$name" '
    /^## / { on = ($0 == "## " want || index($0, "## " want ":") == 1 || index($0, "## " want " ") == 1)
             if (on) found = 1 }
    on { print }
    END { exit found ? 0 : 1 }
  ' "$doc" > "$work/section" || {
    echo "$doc: no \"## $name\" section for the public header $name"
    fail=1
    continue
  }
  # functions declared AUG_API (the declaration may span lines; the #define of AUG_API is not one)
  grep -v '^[[:space:]]*#' "$h" | tr '\n' ' ' | grep -o 'AUG_API[^;(]*(' |
    sed -E 's/[[:space:]]*\($//; s/.*[^A-Za-z0-9_]//' | sort -u > "$work/funcs" || true
  # the pages the section links to: (page.md) or (page.md#anchor)
  pages=$(grep -o '([a-z0-9_-]*\.md[)#]' "$work/section" | sed -E 's/^\(//; s/[)#]$//' | sort -u |
          sed "s|^|$(dirname "$doc")/|")
  while read -r f; do
    nfuncs=$((nfuncs + 1))
    found=0
    for page in "$work/section" $pages; do
      [ -f "$page" ] && grep -qw -- "$f" "$page" && found=1 && break
    done
    if [ "$found" -eq 0 ]; then
      echo "$doc: section \"## $name\" (or a page it links to) does not name $f (declared AUG_API in $name)"
      fail=1
    fi
  done < "$work/funcs"
done
[ "$nheaders" -gt 0 ] || { echo "check_docs_headers: no headers in $inc" >&2; exit 1; }
[ "$fail" -eq 0 ] || exit 1
echo "check_docs_headers: all $nheaders public headers have a section in $doc naming their $nfuncs functions"
