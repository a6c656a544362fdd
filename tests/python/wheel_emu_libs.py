"""wheel_emu_libs.py absent|present|first: the CUDA module of an installed augpy finds cuBLAS and
nvJPEG in NVIDIA's wheel folders (scripts/wheel_check.sh runs it in the fresh venv of the wheel
check).

Run with the emulated module beside the installed extension (AUG_CUDA_BACKEND=emu, no
AUG_CUDA_MODULE: libaug finds it there) and AUG_EMU_NVJPEG=1. With AUG_EMU_LIBS_IN_WHEELS=1 the
emulator answers the two libraries only through a file that exists (the loader path has
neither): 'present': the venv's site-packages holds nvidia/cu13/lib/libcublas.so.13 and
libnvjpeg.so.13 as `pip install augpy[cuda]` puts them, so gemm runs on cuda:0 and the decoder's
engine is nvJPEG; 'absent': it does not, so gemm fails naming where it looked and decoding
falls back to the CPU. 'first' (AUG_EMU_LIBS_IN_WHEELS=0: the loader's path would answer too):
the module opened both through the wheels' folder, which it tries before the loader's path
(aug_emu_lib_opened, exported by the emulator, says through which path)."""
import ctypes
import os
import sys

import numpy as np

import augpy


def main():
    want = sys.argv[1]
    status = augpy.cuda_status()
    if not status.startswith("ok:"):
        sys.exit(f"wheel_emu_libs: the emulated module did not start from the installed package: {status}")
    a = augpy.array_to_tensor(np.ones((4, 3), np.float32)).cuda(0)
    b = augpy.array_to_tensor(np.ones((3, 2), np.float32)).cuda(0)
    engine = augpy.Decoder().engine
    try:
        got = augpy.gemm(a, b).cpu().numpy()
        gemm = "ran"
    except augpy.CuBlasError as e:
        gemm = str(e)
    if want == "first":
        emu = ctypes.CDLL(os.path.join(os.path.dirname(augpy.__file__), "libaug_cuda_emu.so"))
        emu.aug_emu_lib_opened.restype = ctypes.c_char_p
        emu.aug_emu_lib_opened.argtypes = [ctypes.c_char_p]
        for soname in ("libcublas.so.13", "libnvjpeg.so.13"):
            path = emu.aug_emu_lib_opened(soname.encode()).decode()
            if not path.endswith(os.path.join("site-packages", "nvidia", "cu13", "lib", soname)):
                sys.exit(f"wheel_emu_libs: {soname} was opened through {path!r}, not the wheels' folder")
        want = "present"
    if want == "present":
        if gemm != "ran" or engine != "nvjpeg":
            sys.exit(f"wheel_emu_libs: with the wheels' folders, gemm: {gemm}; decoder engine {engine!r}")
        assert np.array_equal(got, np.full((4, 2), 3, np.float32)), got
    elif want == "absent":
        if "nvidia/cu13/lib" not in gemm or engine == "nvjpeg":
            sys.exit(f"wheel_emu_libs: without the wheels' folders, gemm: {gemm}; decoder engine {engine!r}")
    else:
        sys.exit(f"wheel_emu_libs: argument must be absent, present or first, got {want!r}")
    print(f"wheel_emu_libs {sys.argv[1]}: gemm: {gemm}; decoder engine {engine!r}")


if __name__ == "__main__":
    main()
