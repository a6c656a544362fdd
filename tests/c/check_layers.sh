#!/bin/sh
# tests/c/check_layers.sh SRC: the layering rule of docs/architecture.md, from the #include lines
# of SRC (src/). Each layer may include its own headers and those of the layers below it:
#   scalar  (the per-element rules)   scalar
#   codec   (host file formats)       codec, core/error.h (errors and visibility) and nothing
#                                     else of the core
#   core                              core, codec, scalar
#   cpu     (a backend, in libaug)    cpu, core, codec, scalar
#   cuda    (a backend, a module)     cuda, core, scalar
# and every layer the public headers (aug/). A core file that reaches into a backend (cpu/,
# cuda/) is the break this catches. Prints each offending line; exit 1 if any.
src=${1:?usage: check_layers.sh SRC_DIR}
bad=0
for layer in scalar codec core cpu cuda; do
  case $layer in
    scalar) allowed="scalar" ;;
    codec) allowed="codec" ;;
    core) allowed="core codec scalar" ;;
    cpu) allowed="cpu core codec scalar" ;;
    cuda) allowed="cuda core scalar" ;;
  esac
  for f in "$src/$layer"/*; do
    [ -f "$f" ] || continue
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' "$f" | while IFS= read -r line; do
      inc=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
      dir=${inc%%/*}
      ok=0
      [ "$dir" = aug ] && ok=1
      for a in $allowed; do [ "$dir" = "$a" ] && ok=1; done
      [ "$layer" = codec ] && [ "$inc" = core/error.h ] && ok=1
      [ $ok = 1 ] || echo "${f#"$src"/}:${line%%:*}: the $layer layer includes $inc (allowed: $allowed, aug)"
    done
  done
done > "${TMPDIR:-/tmp}/check_layers.$$"
if [ -s "${TMPDIR:-/tmp}/check_layers.$$" ]; then
  cat "${TMPDIR:-/tmp}/check_layers.$$"; bad=1
fi
rm -f "${TMPDIR:-/tmp}/check_layers.$$"
# every folder of src/ is a layer named above: a new one must be placed in the rule
for d in "$src"/*/; do
  case $(basename "$d") in scalar | codec | core | cpu | cuda) ;; *) echo "src/$(basename "$d") is not a layer of check_layers.sh"; bad=1 ;; esac
done
[ $bad = 0 ] && echo "check_layers: every #include of $src follows the layering rule"
exit $bad
