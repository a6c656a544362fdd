"""GPU elementwise ops on 256 MiB (semantics §18: >= 90% of the device-to-device copy
bandwidth measured in the same run, >= PyTorch and CuPy on the same op).

uint8 saturating add with out= (PyTorch has no saturating add: its peer is the
clamp-based form; torch.add and cupy.add wrap around and are shown for scale),
float32 add and multiply with out=, and float32 -> uint8 saturating cast; then, augpy
alone, uint8 -> float32 cast, fills, uniform random fills, advanced-index copies (rows of
a float32 matrix gathered and scattered, uint8 elements gathered) and a float32 gemm
(cuBLAS: the emulated one records no accesses). On the emulated device
each case also prints the emulator's figures (gpubench.emu_row).
Bandwidth: bytes read + written / time, against a plain device copy (PyTorch's
copy_, i.e. cudaMemcpyAsync, when installed; else augpy.copy, a same-dtype kernel).
"""
import numpy as np

import augpy
from gpubench import emu_row, parse, peer, row, time_augpy, time_torch, torch_cuda


def main():
    args = parse(__doc__)
    n = (1 << 16) if args.smoke else (256 << 20)
    torch, cupy = torch_cuda(), peer("cupy")
    if cupy is not None:
        try:
            cupy.cuda.runtime.getDeviceCount()
        except Exception:
            cupy = None
    a = augpy.array_to_tensor(np.random.default_rng(1).integers(0, 256, n, dtype=np.uint8))
    b = augpy.array_to_tensor(np.random.default_rng(2).integers(0, 256, n, dtype=np.uint8))
    c = augpy.CudaTensor((n,), augpy.uint8)
    nf = n // 4
    fa, fb, fc = (augpy.array_to_tensor(np.random.default_rng(k).random(nf, dtype=np.float32) * 300)
                  for k in (3, 4, 5))
    fo = augpy.CudaTensor((nf,), augpy.uint8)

    # the reference copy
    if torch is not None:
        src, dst = torch.empty(n, dtype=torch.uint8, device="cuda"), torch.empty(n, dtype=torch.uint8, device="cuda")
        copy_ms, copy_name = time_torch(torch, lambda: dst.copy_(src), args.reps, args.rounds), "torch copy_"
    else:
        copy_ms, copy_name = time_augpy(lambda: augpy.copy(a, c), args.reps, args.rounds)[0], "augpy.copy"
    copy_bw = 2 * n / copy_ms / 1e6
    print(f"device copy ({copy_name}): {copy_ms:.4f} ms for {n >> 20 or n} {'MiB' if n >= 1 << 20 else 'B'} "
          f"-> {copy_bw:.1f} GB/s")

    irng = np.random.default_rng(6)
    fm = augpy.array_to_tensor(irng.random((nf // 256, 256), dtype=np.float32))
    ridx = irng.permutation(nf // 256)[: nf // 512]
    eidx = irng.integers(0, n, n // 16)
    ga, gb = (augpy.array_to_tensor(irng.random((256, 256), dtype=np.float32)) for _ in range(2))

    def scatter():
        fm[ridx] = 1.5

    cases = [
        ("uint8 a + b (saturating, out=)", lambda: augpy.add(a, b, out=c), 3 * n),
        ("float32 a + b (out=)", lambda: augpy.add(fa, fb, out=fc), 3 * 4 * nf),
        ("float32 a * b (out=)", lambda: augpy.mul(fa, fb, out=fc), 3 * 4 * nf),
        ("float32 -> uint8 saturating cast", lambda: augpy.cast(fa, fo), 5 * nf),
        ("uint8 -> float32 cast", lambda: augpy.copy(fo, fc), 5 * nf),
        ("float32 fill", lambda: augpy.fill(1.5, fc), 4 * nf),
        ("uint8 fill", lambda: augpy.fill(7, c), n),
        ("float32 uniform fill", lambda: rng.uniform(fc, 0.0, 1.0), 4 * nf),
        ("uint8 uniform fill", lambda: rng.uniform(c, 0.0, 255.0), n),
        ("float32 rows gathered, m[idx]", lambda: fm[ridx], 2 * 4 * nf // 2),
        ("float32 rows scattered, m[idx] = v", scatter, 4 * nf // 2),
        ("uint8 elements gathered, a[idx]", lambda: a[eidx], 2 * (n // 16)),
        ("float32 gemm 256 x 256 x 256", lambda: augpy.gemm(ga, gb), 3 * 4 * 256 * 256),
    ]
    rng = augpy.RandomNumberGenerator(seed=3)
    peers = {}
    if torch is not None:
        ta, tb, tc = (torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda") for _ in range(3))
        tfa, tfb, tfc = (torch.rand(nf, device="cuda") * 300 for _ in range(3))
        tfo = torch.empty(nf, dtype=torch.uint8, device="cuda")
        peers["torch"] = [
            lambda: torch.clamp(ta.to(torch.int16) + tb, 0, 255, out=None).to(torch.uint8),
            lambda: torch.add(tfa, tfb, out=tfc), lambda: torch.mul(tfa, tfb, out=tfc),
            lambda: tfo.copy_(torch.clamp(tfa, 0, 255).round()),
        ]
    if cupy is not None:
        ca, cb, cc = (cupy.random.randint(0, 256, n, dtype=cupy.uint8) for _ in range(3))
        cfa, cfb, cfc = (cupy.random.random(nf, dtype=cupy.float32) * 300 for _ in range(3))
        peers["cupy"] = [lambda: cupy.add(ca, cb, out=cc), lambda: cupy.add(cfa, cfb, out=cfc),
                         lambda: cupy.multiply(cfa, cfb, out=cfc), lambda: cupy.clip(cfa, 0, 255).astype(cupy.uint8)]
    for k, (name, fn, nbytes) in enumerate(cases):
        ms, cpu_ms = time_augpy(fn, args.reps, args.rounds)
        others = []
        for pname, fns in peers.items():
            if k >= len(fns):
                continue
            if pname == "torch":
                others.append((pname, time_torch(torch, fns[k], args.reps, args.rounds), ""))
            else:
                def cupy_time(f=fns[k]):
                    start, end = cupy.cuda.Event(), cupy.cuda.Event()
                    f()
                    best = float("inf")
                    for _ in range(args.rounds):
                        start.record()
                        for _ in range(args.reps):
                            f()
                        end.record()
                        end.synchronize()
                        best = min(best, cupy.cuda.get_elapsed_time(start, end) / args.reps)
                    return best
                others.append((pname, cupy_time(), ""))
        if torch is None:
            others.append(("torch", None, "not installed or no GPU"))
        if cupy is None:
            others.append(("cupy", None, "not installed or no GPU"))
        row(name, ms, cpu_ms, others)
        print(f"  {'':<44} {nbytes / ms / 1e6:.1f} GB/s = {nbytes / ms / 1e6 / copy_bw:.0%} of the copy bandwidth")
        emu_row(fn)


if __name__ == "__main__":
    main()
