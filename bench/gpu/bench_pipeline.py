"""The whole augmentation pipeline on the GPU in images/s (semantics §18): batches of
256 480x640 JPEGs through augpy.image.DecodeWarp (2 decoder threads) -> Lighting ->
gaussian_blur -> Gaussian noise (fma), 224x224 uint8, as augpy-demo runs it, against
a DALI pipeline doing the same (mixed decode, warp_affine, brightness/contrast,
gaussian_blur, noise) where installed."""
import numpy as np

import augpy
from augpy.image import DecodeWarp, Lighting
from bench_decode import make_jpegs
from gpubench import parse, peer, time_wall, torch_cuda


def main():
    args = parse(__doc__, default_reps=2)
    n, h, w, size = (4, 48, 64, 24) if args.smoke else (256, 480, 640, 224)
    data = make_jpegs(n, h, w)
    rng = np.random.default_rng(0)
    aug = [{"angle": float(rng.uniform(-20, 20)), "scale": float(rng.uniform(0.9, 1.2)),
            "gamma_gray": float(rng.uniform(0.8, 1.25)), "contrast": float(rng.uniform(-0.3, 0.3))} for _ in range(n)]
    dw = DecodeWarp(n, (3, size, size), background=(124, 116, 104), cpu_threads=2, num_buffers=2)
    light = Lighting(n)
    sigmas = augpy.array_to_tensor(rng.uniform(0.5, 2.0, n).astype(np.float32))
    gen = augpy.RandomNumberGenerator(seed=1)
    noise = augpy.CudaTensor((n, 3, size, size), augpy.float32)
    out = augpy.CudaTensor((n, 3, size, size), augpy.uint8)

    def batch():
        b = light(dw({"image": data, "augmentation": aug}))
        augpy.gaussian_blur(b["image"], sigmas, 15, out=out)
        gen.gaussian(noise, 0.0, 4.0)
        augpy.fma(1.0, noise, out, out=out)

    ms = time_wall(batch, augpy.synchronize, args.reps, args.rounds)
    print(f"  augpy DecodeWarp -> Lighting -> blur -> noise  {ms:9.2f} ms per batch  {n / ms * 1e3:8.0f} images/s "
          f"(decoder: {augpy.Decoder().engine})")
    dw.close()
    torch = torch_cuda()
    dali = peer("nvidia.dali")
    if dali is not None and torch is not None and not args.smoke:
        try:
            from nvidia.dali import fn, pipeline_def, types

            @pipeline_def(batch_size=n, num_threads=2, device_id=0)
            def pipe():
                enc = fn.external_source(source=lambda: [np.frombuffer(d, np.uint8) for d in data], batch=True)
                img = fn.decoders.image(enc, device="mixed")
                img = fn.warp_affine(img, matrix=fn.transforms.rotation(angle=fn.random.uniform(range=(-20, 20)),
                                                                        center=[w / 2, h / 2]),
                                     size=[size, size], fill_value=0, interp_type=types.INTERP_LINEAR)
                img = fn.brightness_contrast(img, contrast=fn.random.uniform(range=(0.7, 1.3)))
                img = fn.gaussian_blur(img, sigma=fn.random.uniform(range=(0.5, 2.0)), window_size=15)
                return fn.noise.gaussian(img, stddev=4.0)

            p = pipe()
            p.build()
            dms = time_wall(p.run, torch.cuda.synchronize, args.reps, args.rounds)
            print(f"  DALI pipeline                                  {dms:9.2f} ms per batch  {n / dms * 1e3:8.0f} "
                  f"images/s (augpy: {dms / ms:.2f}x)")
        except Exception as e:
            print(f"  DALI: error: {e}")
    else:
        print("  DALI: not installed, no GPU, or --smoke")


if __name__ == "__main__":
    main()
