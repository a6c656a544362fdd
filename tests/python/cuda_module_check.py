"""The nvcc-built CUDA module loads through augpy (run by `make cuda-check` with
AUG_CUDA_MODULE pointing at build-nvcc/libaug_cuda.so).

On a machine without a GPU (CI) the module must load, find its runtime, see no
device and leave augpy on the CPU with the reason in augpy.cuda_status(); with
a GPU it must report the devices and make cuda:0 the default. A module that
fails to load (a missing library, an undefined symbol, an ABI mismatch) fails
this check with the loader's message. cuBLAS and nvJPEG are opened at run time
(src/cuda/dynlib.cu), so neither may be among the module's DT_NEEDED libraries: a
machine without them must lose only gemm / GPU decoding, not the whole backend."""
import os
import subprocess
import sys

import augpy


def main():
    module = os.environ.get("AUG_CUDA_MODULE", "")
    if not module or not os.path.exists(module):
        sys.exit(f"cuda_module_check: AUG_CUDA_MODULE={module!r} is not a file")
    dyn = subprocess.run(["readelf", "-d", module], capture_output=True, text=True)
    needed = [line.split("[", 1)[1].rstrip("]") for line in dyn.stdout.splitlines() if "(NEEDED)" in line]
    if dyn.returncode != 0 or not needed:
        sys.exit(f"cuda_module_check: readelf -d {module} failed: {dyn.stderr.strip()}")
    linked = [n for n in needed if n.startswith(("libcublas", "libnvjpeg"))]
    if linked:
        sys.exit(f"cuda_module_check: {module} links {', '.join(linked)}: they must be opened at run time")
    print(f"cuda_module_check: {module} needs {', '.join(needed)}")
    status = augpy.cuda_status()
    print(f"cuda_module_check: {module}: {status}")
    if status.startswith("ok:"):
        t = augpy.zeros((4,), dtype=augpy.uint8)
        assert t.device.startswith("cuda:"), t.device
        assert (t + 1).numpy().tolist() == [1, 1, 1, 1]
        return
    if not status.startswith("no CUDA device"):
        sys.exit(f"cuda_module_check: the CUDA module did not start: {status}")
    t = augpy.zeros((4,), dtype=augpy.uint8)
    assert t.device == "cpu", t.device


if __name__ == "__main__":
    main()
