"""Records NVIDIA DALI's own results for float results that overflow (issue 11's first wrong
result: a float32 result computed through float64 must be inf, not FLT_MAX) into
dali_overflow.npz, the oracle of test_dali_regressions.py::test_matches_dali_recorded.

Needs DALI, which `make test` does not install. Run it from the repository root with the peers
venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned PEER_DEPS); it
expects nvidia-dali-cuda130==2.4.0 and refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_dali_overflow.py
DALI's CPU operators run without a GPU (device_id=None)."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "nvidia-dali-cuda130")  # before importing them

import pathlib

import numpy as np
import nvidia.dali as dali
import nvidia.dali.math as dmath
from nvidia.dali import fn, pipeline_def

BINARY = {"mul": lambda a, b: a * b, "truediv": lambda a, b: a / b, "pow": lambda a, b: dmath.pow(a, b),
          "fpow": lambda a, b: dmath.fpow(a, b), "add": lambda a, b: a + b, "sub": lambda a, b: a - b}
UNARY = {"exp": dmath.exp, "sinh": dmath.sinh, "cosh": dmath.cosh}


def dali_run(f, *arrays):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return f(*[fn.external_source(source=[[a]], cycle=True) for a in arrays])
    p = pipe()
    p.build()
    return np.array(p.run()[0][0])


def main():
    rng = np.random.default_rng(11)
    big = np.array([3e38, -3e38, 1e38, 2.5e38, 1.0, -7.5, 0.0, 3.4e38], np.float32)
    cases = []
    for op in BINARY:
        for bdt in ("int16", "int32", "int64", "uint32", "uint64", "float64"):
            if op in ("pow", "fpow"):
                a = np.array([10.0, 1e10, -3e5, 2.0, 1e20, 0.5, 3.0, 7.0], np.float32)
                b = np.array([39, 4, 7, 128, 2, 3, 80, 46]).astype(bdt)
            else:
                a = big
                b = np.array([3, 2, 4, 2, -3, 5, 9, 1] if bdt[0] != "u" else [3, 2, 4, 2, 3, 5, 9, 1]).astype(bdt)
                if op == "truediv":
                    b = b.astype(np.float64) * 1e-3 if bdt == "float64" else b
                    a = big.copy()
                if op in ("add", "sub") and bdt == "float64":
                    b = np.array([1e38, -1e38, 3e38, 1e38, 0, 1, -1, 1e38], np.float64)
            cases.append((op, a, b))
    for op in UNARY:
        for adt in ("int16", "int32", "int64", "uint32"):
            a = np.array([100, 88, 89, 20, 0, 1, 90, 200] if op == "exp" else [100, 89, 90, 3, 0, 1, 95, 200]).astype(adt)
            cases.append((op, a, None))
    rng.shuffle(cases)
    out = {"dali_version": np.array(dali.__version__)}
    for i, (op, a, b) in enumerate(cases):
        r = dali_run(BINARY[op], a, b) if b is not None else dali_run(UNARY[op], a)
        out[f"c{i}_op"] = np.array(op)
        out[f"c{i}_a"] = a
        if b is not None:
            out[f"c{i}_b"] = b
        out[f"c{i}_r"] = r
    out["n"] = np.array(len(cases))
    path = pathlib.Path(__file__).with_name("dali_overflow.npz")
    np.savez_compressed(path, **out)
    print(f"{path}: {len(cases)} cases, DALI {dali.__version__}")


if __name__ == "__main__":
    main()
