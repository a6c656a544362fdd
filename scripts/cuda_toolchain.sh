#!/usr/bin/env bash
# scripts/cuda_toolchain.sh VENV_DIR
#
# What: finds (or installs) the CUDA 13.0 toolchain the CUDA backend is built and checked with, and
# prints shell-sourceable lines, nothing else, on stdout:
#   AUG_NVCC=/abs/nvcc                  the compiler driver (the real binary, not a wrapper script)
#   AUG_CUDA_INCLUDE=dir[:dir]          cuda_runtime.h, cuda_fp16.h, crt/, and the CCCL dir (nv/target)
#   AUG_CUDA_LIBDIR=dir                 libcudart_static.a (link with `-cudart static` / -lcudart_static)
#   AUG_CUBLAS_INCLUDE=dir  AUG_CUBLAS_LIBDIR=dir        cublas_v2.h, libcublas.so.13
#   AUG_CUOBJDUMP=/abs/cuobjdump  AUG_NVDISASM=/abs/nvdisasm   (cuobjdump -sass needs nvdisasm beside it)
#   AUG_NVJPEG_INCLUDE=dir  AUG_NVJPEG_LIBDIR=dir        nvjpeg.h, libnvjpeg.so.13
#   AUG_CUDA_ORIGIN=system|wheels  AUG_CUDA_VERSION=13.0.88   where nvcc came from, its version
# Diagnostics go to stderr; when everything is already there the script prints nothing there and
# does not touch the network. Exit 0 on success, 1 on failure (message on stderr), 2 on bad usage.
# Use:  eval "$(scripts/cuda_toolchain.sh .venv)"   or   scripts/cuda_toolchain.sh .venv > build/cuda.env
#
# Why: no machine of this project has a GPU, and a fresh Debian 12 machine has no CUDA toolkit at all,
# while the developers' and CI's machines have CUDA 13.0 in /usr/local/cuda (without cuobjdump/nvdisasm
# and nvJPEG). NVIDIA publishes every piece as a PyPI wheel, so the build takes one pinned CUDA 13.0
# line from there when the system has none, and the tools the system never has always from there.
#
# How:
#  1. Unless AUG_CUDA_FORCE_WHEELS=1, a system toolkit is looked for in $CUDA_HOME, /usr/local/cuda,
#     then `nvcc` on PATH. Its real location is read from `nvcc --dryrun` (/usr/local/bin/nvcc may be a
#     wrapper script); it is used when it is release 13.x and has cuda_runtime.h and libcudart. Its
#     cuBLAS is used when present (cublas_v2.h + libcublas.so*), else the cuBLAS wheel.
#  2. Otherwise the toolkit wheels below are installed into VENV_DIR (created with `${PYTHON:-python3}
#     -m venv` if missing). They install flat into site-packages/nvidia/cu13/{bin,include,lib,nvvm}:
#       bin/nvcc ptxas fatbinary nvlink cudafe++ (nvidia-cuda-nvcc); nvvm/bin/cicc, nvvm/libdevice,
#       lib/libnvvm.so.4 (nvidia-nvvm); include/crt/* (nvidia-cuda-crt); include/cuda_runtime.h ...,
#       lib/libcudart_static.a, lib/libcudart.so.13, lib/libcudadevrt.a (nvidia-cuda-runtime);
#       include/nv/target, include/cccl/{cuda,cub,thrust,nv} (nvidia-cuda-cccl: cuda_fp16.h needs
#       <nv/target>); include/cublas*.h, lib/libcublas.so.13, libcublasLt.so.13 (nvidia-cublas);
#       include/nvjpeg.h, lib/libnvjpeg.so.13 (nvidia-nvjpeg); bin/cuobjdump, bin/nvdisasm.
#     The wheel nvcc finds its own include/ and include/cccl (nvcc.profile, empty _TARGET_DIR_) but
#     looks for libraries in lib64/, which the wheels lack: pass -L"$AUG_CUDA_LIBDIR". The wheels
#     ship no unversioned .so links: link with -l:libcublas.so.13 / -l:libnvjpeg.so.13 (works with
#     the system toolkit too) and the static cudart (nvcc's default `-cudart static`).
#  3. cuobjdump, nvdisasm and nvJPEG always come from wheels in VENV_DIR (13.2 is the oldest
#     cuobjdump/nvdisasm wheel; it reads CUDA 13.0 fatbinaries, output identical to 13.4/13.5).
#  Only wheels that are missing or at another version are installed (pip --no-deps with the whole
#  closure pinned: nvidia-cuda-nvcc 13.0.88 itself requires nvvm/crt/runtime unpinned, which would
#  otherwise pull the newest 13.x). The check is one Python call reading the installed metadata;
#  a second run makes no pip call. Concurrent runs serialise on VENV_DIR/.aug-cuda-toolchain.lock.
#  The pins are the exact component versions of the CUDA 13.0 Update 2 toolkit on this project's
#  machines (its /usr/local/cuda was assembled from these same wheels).
set -euo pipefail

# ---- the pinned CUDA 13.0 line (exact versions: a fresh machine gets the same toolchain) ----------
TOOLKIT_PINS=(nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88
              nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85)
CUBLAS_PINS=(nvidia-cublas==13.1.0.3)
ALWAYS_PINS=(nvidia-cuda-cuobjdump==13.2.86 nvidia-cuda-nvdisasm==13.2.86 nvidia-nvjpeg==13.0.1.86)

say() { echo "cuda_toolchain: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 VENV_DIR" >&2; exit 2; }
mkdir -p "$1" || die "cannot create $1"
VENV=$(cd "$1" && pwd)

# One run at a time per venv (make -j may start two).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$VENV/.aug-cuda-toolchain.lock"
  flock 9
fi

if [ ! -x "$VENV/bin/python" ]; then
  say "creating virtualenv $VENV"
  "${PYTHON:-python3}" -m venv "$VENV" >&2 || die "python3 -m venv $VENV failed (apt-get install python3-venv)"
fi
VPY="$VENV/bin/python"

# ---- 1. a system toolkit ---------------------------------------------------------------------------
notes=()          # why system candidates were rejected; printed only if we fall back to wheels
sys_nvcc="" sys_inc="" sys_lib="" sys_ver="" why=""

first_with() {    # first_with FILE-GLOB DIR... : prints the first DIR that holds a match
  local pat=$1 d f; shift
  for d in "$@"; do
    for f in "$d"/$pat; do [ -e "$f" ] && { echo "$d"; return 0; }; done
  done
  return 1
}

try_system_nvcc() {   # try_system_nvcc PATH-TO-NVCC-OR-WRAPPER
  local cand=$1 dry here tdir top ver inc lib
  [ -x "$cand" ] || { notes+=("$cand: not found"); return 1; }
  dry=$("$cand" --dryrun -x cu -c /dev/null -o /dev/null 2>&1) || { notes+=("$cand: does not run"); return 1; }
  here=$(sed -n 's/^#\$ _HERE_=//p' <<<"$dry" | tail -n1)
  tdir=$(sed -n 's/^#\$ _TARGET_DIR_=//p' <<<"$dry" | tail -n1)
  [ -n "$here" ] && [ -x "$here/nvcc" ] || { notes+=("$cand: cannot locate its toolkit"); return 1; }
  top=$(cd "$here/.." && pwd)
  ver=$("$here/nvcc" --version 2>/dev/null | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
  case "$ver" in
    13.*) ;;
    *) notes+=("$here/nvcc: version '${ver:-?}', need 13.x"); return 1 ;;
  esac
  inc=$(first_with cuda_runtime.h "$top/include" ${tdir:+"$top/$tdir/include"}) \
    || { notes+=("$top: no cuda_runtime.h"); return 1; }
  lib=$(first_with 'libcudart_static.a' "$top/lib64" "$top/lib" ${tdir:+"$top/$tdir/lib"}) \
    || lib=$(first_with 'libcudart.so*' "$top/lib64" "$top/lib" ${tdir:+"$top/$tdir/lib"}) \
    || { notes+=("$top: no libcudart"); return 1; }
  sys_nvcc="$here/nvcc" sys_inc=$inc sys_lib=$lib sys_ver=$ver
}

if [ "${AUG_CUDA_FORCE_WHEELS:-0}" != 1 ]; then
  cands=()
  [ -n "${CUDA_HOME:-}" ] && cands+=("$CUDA_HOME/bin/nvcc")
  cands+=(/usr/local/cuda/bin/nvcc)
  p=$(command -v nvcc 2>/dev/null || true); [ -n "$p" ] && cands+=("$p")
  for c in "${cands[@]}"; do try_system_nvcc "$c" && break; done
fi

pins=("${ALWAYS_PINS[@]}")
use_sys_cublas=0
if [ -n "$sys_nvcc" ]; then
  if [ -e "$sys_inc/cublas_v2.h" ] && first_with 'libcublas.so*' "$sys_lib" >/dev/null; then
    use_sys_cublas=1
  else
    pins+=("${CUBLAS_PINS[@]}")
  fi
else
  if [ "${AUG_CUDA_FORCE_WHEELS:-0}" = 1 ]; then
    why="AUG_CUDA_FORCE_WHEELS=1"
  else
    why=$(printf '%s; ' "${notes[@]}"); why="no usable CUDA 13 toolkit (${why%; })"
  fi
  pins+=("${TOOLKIT_PINS[@]}" "${CUBLAS_PINS[@]}")
fi

# ---- 2. wheels: install what is missing --------------------------------------------------------------
missing=$("$VPY" - "${pins[@]}" <<'EOF'
import sys
from importlib import metadata
for pin in sys.argv[1:]:
    name, ver = pin.split("==")
    try:
        if metadata.version(name) == ver:
            continue
    except metadata.PackageNotFoundError:
        pass
    print(pin)
EOF
) || die "$VPY cannot read its installed packages"
if [ -n "$missing" ]; then
  mapfile -t todo <<<"$missing"
  [ -n "$sys_nvcc" ] || say "$why: using the CUDA toolkit wheels"
  say "installing into $VENV: ${todo[*]}"
  t0=$SECONDS
  "$VPY" -m pip install --no-deps --only-binary=:all: --disable-pip-version-check --no-input -q \
      "${todo[@]}" >&2 || die "pip install ${todo[*]} failed (PyPI reachable?)"
  say "installed in $((SECONDS - t0)) s"
fi

# Locate files through the wheels' RECORDs (not a guessed layout): DIST:PATH-SUFFIX -> absolute path.
locate() {
  "$VPY" - "$@" <<'EOF'
import os, sys
from importlib import metadata
for arg in sys.argv[1:]:
    dist, suffix = arg.split(":", 1)
    hit = ""
    try:
        for f in metadata.distribution(dist).files or []:
            p = f.as_posix()
            if p == suffix or p.endswith("/" + suffix):
                hit = os.path.abspath(str(f.locate()))
                break
    except metadata.PackageNotFoundError:
        pass
    print(hit or "MISSING " + arg)
EOF
}

queries=(nvidia-cuda-cuobjdump:bin/cuobjdump nvidia-cuda-nvdisasm:bin/nvdisasm
         nvidia-nvjpeg:include/nvjpeg.h nvidia-nvjpeg:lib/libnvjpeg.so.13)
if [ -z "$sys_nvcc" ]; then
  queries+=(nvidia-cuda-nvcc:bin/nvcc nvidia-cuda-runtime:include/cuda_runtime.h
            nvidia-cuda-crt:include/crt/host_config.h nvidia-cuda-cccl:include/nv/target
            nvidia-cuda-runtime:lib/libcudart_static.a nvidia-nvvm:nvvm/bin/cicc)
fi
[ "$use_sys_cublas" = 1 ] || queries+=(nvidia-cublas:include/cublas_v2.h nvidia-cublas:lib/libcublas.so.13)
mapfile -t found < <(locate "${queries[@]}")
for f in "${found[@]}"; do
  case "$f" in MISSING*) die "installed wheels lack ${f#MISSING } (reinstall: rm -rf $VENV)";; esac
done

joindirs() {      # joindirs DIR...: colon-joined, duplicates dropped, order kept
  local out="" d
  for d in "$@"; do case ":$out:" in *":$d:"*) ;; *) out=${out:+$out:}$d ;; esac; done
  echo "$out"
}

cuobjdump=${found[0]} nvdisasm=${found[1]}
nvjpeg_inc=$(dirname "${found[2]}") nvjpeg_lib=$(dirname "${found[3]}")
if [ -n "$sys_nvcc" ]; then
  origin=system version=$sys_ver nvcc=$sys_nvcc
  incs=("$sys_inc"); [ -d "$sys_inc/cccl" ] && incs+=("$sys_inc/cccl")
  cuda_inc=$(joindirs "${incs[@]}") cuda_lib=$sys_lib
  i=4
else
  origin=wheels nvcc=${found[4]}
  version=$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
  rt_inc=$(dirname "${found[5]}")
  crt_inc=$(dirname "$(dirname "${found[6]}")")
  cccl_inc=$(dirname "$(dirname "${found[7]}")")
  incs=("$rt_inc" "$crt_inc" "$cccl_inc"); [ -d "$cccl_inc/cccl" ] && incs+=("$cccl_inc/cccl")
  cuda_inc=$(joindirs "${incs[@]}") cuda_lib=$(dirname "${found[8]}")
  i=10
fi
if [ "$use_sys_cublas" = 1 ]; then
  cublas_inc=$sys_inc cublas_lib=$(first_with 'libcublas.so*' "$sys_lib")
else
  cublas_inc=$(dirname "${found[$i]}") cublas_lib=$(dirname "${found[$((i + 1))]}")
fi

emit() { printf '%s=%q\n' "$1" "$2"; }
emit AUG_NVCC "$nvcc"
emit AUG_CUDA_INCLUDE "$cuda_inc"
emit AUG_CUDA_LIBDIR "$cuda_lib"
emit AUG_CUBLAS_INCLUDE "$cublas_inc"
emit AUG_CUBLAS_LIBDIR "$cublas_lib"
emit AUG_CUOBJDUMP "$cuobjdump"
emit AUG_NVDISASM "$nvdisasm"
emit AUG_NVJPEG_INCLUDE "$nvjpeg_inc"
emit AUG_NVJPEG_LIBDIR "$nvjpeg_lib"
emit AUG_CUDA_ORIGIN "$origin"
emit AUG_CUDA_VERSION "$version"
