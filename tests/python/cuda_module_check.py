"""The nvcc-built CUDA module loads through augpy (run by `make cuda-check` with
AUG_CUDA_MODULE pointing at build-nvcc/libaug_cuda.so).

On a machine without a GPU (CI) the module must load, find its runtime, see no
device and leave augpy on the CPU with the reason in augpy.cuda_status(); with
a GPU it must report the devices and make cuda:0 the default. A module that
fails to load (a missing library, an undefined symbol, an ABI mismatch) fails
this check with the loader's message."""
import os
import sys

import augpy


def main():
    module = os.environ.get("AUG_CUDA_MODULE", "")
    if not module or not os.path.exists(module):
        sys.exit(f"cuda_module_check: AUG_CUDA_MODULE={module!r} is not a file")
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
