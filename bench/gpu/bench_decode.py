"""JPEG decoding to device memory (semantics §18: >= torchvision.io.decode_jpeg(
device='cuda')): a batch of 256 480x640 JPEGs (quality 90, 4:2:0, made with Pillow),
augpy.Decoder on cuda:0 (nvJPEG, or the CPU decode + upload fallback: the engine is
printed) one image at a time and with 2 decoder threads, against torchvision's
batched GPU decode and DALI's fn.decoders.image(device='mixed') where installed.
Wall time: decoding is host and device work."""
import io
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from PIL import Image

import augpy
from gpubench import parse, peer, time_wall, torch_cuda


def make_jpegs(n, h, w):
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:h, 0:w]
    out = []
    for i in range(n):
        img = np.stack([(x + 3 * i) % 256, (y * 2 + i) % 256, (x + y) % 256], -1).astype(np.float64)
        img = np.clip(img + rng.normal(0, 12, img.shape), 0, 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def main():
    args = parse(__doc__, default_reps=1)
    n, h, w = (4, 48, 64) if args.smoke else (256, 480, 640)
    data = make_jpegs(n, h, w)
    dec = augpy.Decoder()
    print(f"augpy decoder engine: {dec.engine}")
    sync = augpy.synchronize

    def one_thread():
        for d in data:
            dec.decode(d)

    ms1 = time_wall(one_thread, sync, args.reps, args.rounds)
    local = {}

    def decode_in_thread(d):
        key = threading.get_ident()
        if key not in local:
            s = augpy.CudaStream()
            s.activate()
            local[key] = augpy.Decoder()
        local[key].decode(d)

    pool = ThreadPoolExecutor(2)
    ms2 = time_wall(lambda: list(pool.map(decode_in_thread, data)), sync, args.reps, args.rounds)
    pool.shutdown()
    print(f"  augpy Decoder, 1 thread   {ms1:9.2f} ms per batch  {n / ms1 * 1e3:8.0f} images/s")
    print(f"  augpy Decoder, 2 threads  {ms2:9.2f} ms per batch  {n / ms2 * 1e3:8.0f} images/s")
    torch = torch_cuda()
    tvio = peer("torchvision.io") if torch is not None else None
    if tvio is not None:
        tdata = [torch.frombuffer(bytearray(d), dtype=torch.uint8) for d in data]
        ms = time_wall(lambda: tvio.decode_jpeg(tdata, device="cuda"), torch.cuda.synchronize, args.reps,
                       args.rounds)
        print(f"  torchvision decode_jpeg   {ms:9.2f} ms per batch  {n / ms * 1e3:8.0f} images/s "
              f"(augpy 2 threads: {ms / ms2:.2f}x)")
    else:
        print("  torchvision: not installed or no GPU")
    dali = peer("nvidia.dali")
    if dali is not None and torch is not None and not args.smoke:
        try:
            from nvidia.dali import fn, pipeline_def

            @pipeline_def(batch_size=n, num_threads=2, device_id=0)
            def pipe():
                enc = fn.external_source(source=lambda: [np.frombuffer(d, np.uint8) for d in data], batch=True)
                return fn.decoders.image(enc, device="mixed")

            p = pipe()
            p.build()
            ms = time_wall(p.run, torch.cuda.synchronize, args.reps, args.rounds)
            print(f"  DALI decoders.image mixed {ms:9.2f} ms per batch  {n / ms * 1e3:8.0f} images/s "
                  f"(augpy 2 threads: {ms / ms2:.2f}x)")
        except Exception as e:
            print(f"  DALI: error: {e}")
    else:
        print("  DALI: not installed, no GPU, or --smoke")


if __name__ == "__main__":
    main()
