"""GPU reductions on 256 MiB against torch.sum (semantics §18): uint8 sum (upcast to
an exact uint64 count), float32 sum (pairwise, the CPU's order) and a row-wise
float32 sum over the last axis. augpy's results equal the CPU backend's bit for bit;
torch's float32 order differs."""
import numpy as np

import augpy
from gpubench import emu_row, parse, row, time_augpy, time_torch, torch_cuda


def main():
    args = parse(__doc__)
    n = (1 << 16) if args.smoke else (256 << 20)
    torch = torch_cuda()
    u = augpy.array_to_tensor(np.random.default_rng(1).integers(0, 256, n, dtype=np.uint8))
    f = augpy.array_to_tensor(np.random.default_rng(2).random(n // 4, dtype=np.float32))
    rows = f.reshape(-1, 1024 if not args.smoke else 64)
    cases = [("uint8 sum (upcast)", lambda: augpy.sum(u, upcast=True)),
             ("float32 sum", lambda: augpy.sum(f)),
             ("float32 sum over the last axis", lambda: augpy.sum(rows, 1))]
    tp = []
    if torch is not None:
        tu = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
        tf = torch.rand(n // 4, device="cuda")
        tr = tf.reshape(rows.shape)
        tp = [lambda: torch.sum(tu, dtype=torch.int64), lambda: torch.sum(tf), lambda: torch.sum(tr, 1)]
    for k, (name, fn) in enumerate(cases):
        ms, cpu_ms = time_augpy(fn, args.reps, args.rounds)
        peer = [("torch", time_torch(torch, tp[k], args.reps, args.rounds), "")] if torch is not None else \
               [("torch", None, "not installed or no GPU")]
        row(name, ms, cpu_ms, peer)
        emu_row(fn)


if __name__ == "__main__":
    main()
