"""GPU image functions on a batch of 256 images, 480x640 -> 224x224 (semantics §18: warp / blur >=
DALI's): warp_affine (uint8, random rotations and scales, s from make_transform; bilinear, and augpy
alone nearest and bicubic), gaussian_blur (sigma 0.5 .. 3 per image), lighting, against DALI's
fn.warp_affine / fn.gaussian_blur and torchvision's functional affine / gaussian_blur on CUDA
tensors where installed; then, augpy alone, the warp of CHW sources, warp_perspective (uint8, the
same matrices tilted, HWC and CHW sources, nearest and bicubic; float32 HWC), warp_affine of float32
images (HWC and CHW), resize (CHW uint8 shrinking and enlarging, HWC uint8, float32), the 8-bit box
blur, the generic blurs (float32 and float64 Gaussian batches, a float32 box, a uint8 box past the
8-bit path's 16), PIL's Gaussian blur (timm's policies), colour jitter, grayscale,
crop_mirror_normalize, lighting of float32 images, the tone ops (invert, posterize, solarize),
autocontrast, equalize and adjust_sharpness, and mix_mirror (timm's Mixup: MixUp of the whole
batch, CutMix / MixUp per image). On the emulated device each case also prints the emulator's
figures (gpubench.emu_row)."""
import numpy as np

import augpy
from gpubench import emu_row, parse, peer, row, time_augpy, time_torch, time_wall, torch_cuda


def main():
    args = parse(__doc__, default_reps=5)
    n, (h, w), (th, tw) = (2, (48, 64), (24, 24)) if args.smoke else (256, (480, 640), (224, 224))
    rng = np.random.default_rng(0)
    srcs = [augpy.array_to_tensor(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for _ in range(n)]
    dst = augpy.CudaTensor((n, 3, th, tw), augpy.uint8)
    mats, ss = [], []
    for i in range(n):
        m, s = augpy.make_transform((h, w), (th, tw), angle=float(rng.uniform(-30, 30)),
                                    scale=float(rng.uniform(0.8, 1.3)), max_supersampling=1)
        mats.append(m)
        ss.append(s)
    # the parameters as host tensors (no copy), as the pipeline stages pass them: the ops
    # read them on the host without waiting for the GPU (docs/cuda.md, no host waits)
    host = augpy.from_dlpack
    bg = host(np.array([124, 116, 104], np.float64))

    matrices = np.stack([np.asarray(m, np.float32) for m in mats])

    def warp():  # one batched call: every image one launch
        augpy.warp_affine(srcs, dst, matrices, bg, ss)

    # the same matrices tilted: w = g (X - tw/2) + h (Y - th/2) + 1 within 1 +- 0.2 over the output
    # (a generator of their own: the other cases' draws stay as they were)
    rng2 = np.random.default_rng(1)
    tilt = [np.array([[1, 0, 0], [0, 1, 0], [g, k, 1 - g * tw / 2 - k * th / 2]]) for g, k in
            rng2.uniform(-0.1, 0.1, (n, 2)) / np.array([tw, th])]
    homs = np.stack([np.vstack([np.asarray(m, np.float64), [0, 0, 1]]) @ t for m, t in zip(mats, tilt)]).astype(
        np.float32)
    csrcs = [augpy.array_to_tensor(rng2.integers(0, 256, (3, h, w), dtype=np.uint8)) for _ in range(n)]
    fsrcs = [augpy.array_to_tensor(rng2.random((h, w, 3), dtype=np.float32)) for _ in range(n)]
    fcsrcs = [augpy.array_to_tensor(rng2.random((3, h, w), dtype=np.float32)) for _ in range(n)]
    fwarped = augpy.CudaTensor((n, 3, th, tw), augpy.float32)

    sigmas = host(rng.uniform(0.5, 3.0, n).astype(np.float32))
    blurred = augpy.CudaTensor((n, 3, th, tw), augpy.uint8)
    gg = host(rng.uniform(0.7, 1.4, n).astype(np.float32))
    gc = host(rng.uniform(0.8, 1.2, 3 * n).astype(np.float32))
    ct = host(rng.uniform(-0.5, 0.5, n).astype(np.float32))
    lit = augpy.CudaTensor((n, 3, th, tw), augpy.uint8)
    radii = host(rng.uniform(0.1, 2.0, n).astype(np.float32))  # per-image radii
    pil = augpy.CudaTensor((n, 3, th, tw), augpy.uint8)
    fdst = augpy.array_to_tensor(rng.random((n, 3, th, tw), dtype=np.float32))
    fdst.layout = "NCHW"
    flit = augpy.CudaTensor((n, 3, th, tw), augpy.float32)
    dst0, box = augpy.CudaTensor((3, th, tw), augpy.uint8), augpy.CudaTensor((3, th, tw), augpy.uint8)
    fblur, dblur = augpy.CudaTensor((n, 3, th, tw), augpy.float32), augpy.CudaTensor((n, 3, th, tw), augpy.float64)
    ddst = augpy.array_to_tensor(rng.random((n, 3, th, tw)))
    ddst.layout = "NCHW"
    fdst0 = augpy.array_to_tensor(rng.random((3, th, tw), dtype=np.float32))
    fbox = augpy.CudaTensor((3, th, tw), augpy.float32)
    jb, jc, js, jh = ([float(v) for v in rng.uniform(lo, hi, n)] for lo, hi in ((0.6, 1.4), (0.6, 1.4), (0.6, 1.4),
                                                                                  (-0.1, 0.1)))
    # MixUp / CutMix with the mirrored batch (timm's Mixup), in place on a batch of their own
    rng3 = np.random.default_rng(2)
    mixb = augpy.array_to_tensor(rng3.standard_normal((n, 3, th, tw), dtype=np.float32))
    lams = rng3.random(n).astype(np.float32)
    mix_w = [(float(v), float(np.float32(1) - v)) for v in lams]
    mix_boxes = [(tw // 4, th // 4, tw * 3 // 4, th * 3 // 4) if i % 2 else (0, 0, 0, 0) for i in range(n)]
    cases = {
        "warp_affine (batch)": lambda: warp(),
        "warp_affine (batch, nearest)": lambda: augpy.warp_affine(srcs, dst, matrices, bg, ss, interpolation="nearest"),
        "warp_affine (batch, bicubic)": lambda: augpy.warp_affine(srcs, dst, matrices, bg, ss, interpolation="cubic"),
        "warp_affine (batch, CHW sources)": lambda: augpy.warp_affine(csrcs, dst, matrices, bg, ss, src_layout="CHW"),
        "warp_perspective (batch)": lambda: augpy.warp_perspective(srcs, dst, homs, bg, ss),
        "warp_perspective (batch, CHW sources)": lambda: augpy.warp_perspective(csrcs, dst, homs, bg, ss,
                                                                               src_layout="CHW"),
        "warp_affine (float32 batch)": lambda: augpy.warp_affine(fsrcs, fwarped, matrices, bg, ss),
        "warp_perspective (float32 batch)": lambda: augpy.warp_perspective(fsrcs, fwarped, homs, bg, ss),
        "warp_perspective (batch, nearest)": lambda: augpy.warp_perspective(srcs, dst, homs, bg, ss,
                                                                            interpolation="nearest"),
        "warp_perspective (batch, bicubic)": lambda: augpy.warp_perspective(srcs, dst, homs, bg, ss,
                                                                            interpolation="cubic"),
        "warp_affine (float32 batch, CHW sources)": lambda: augpy.warp_affine(fcsrcs, fwarped, matrices, bg, ss,
                                                                              src_layout="CHW"),
        "gaussian_blur (batch, max_ksize 21)": lambda: augpy.gaussian_blur(dst, sigmas, 21, out=blurred),
        "lighting (batch)": lambda: augpy.lighting(dst, gg, gc, ct, 0, 255, out=lit),
        "resize (batch, to half size)": lambda: augpy.resize(dst, (th // 2, tw // 2), layout="NCHW"),
        "resize (batch, 3.7x smaller)": lambda: augpy.resize(dst, (th * 10 // 37, tw * 10 // 37), layout="NCHW"),
        "resize (batch, enlarged 1.5x)": lambda: augpy.resize(dst, (th * 3 // 2, tw * 3 // 2), layout="NCHW"),
        "resize (HWC images, to half size)": lambda: augpy.resize(srcs[0], (h // 2, w // 2), layout="HWC"),
        "resize (float32 batch, to half size)": lambda: augpy.resize(fdst, (th // 2, tw // 2), layout="NCHW"),
        "box_blur (one image, ksize 5)": lambda: augpy.box_blur_single(dst0, 5, out=box),
        # the generic blurs (float taps, cuda/blur.cu's f32 / f64 tiles)
        "gaussian_blur (float32 batch, max_ksize 21)": lambda: augpy.gaussian_blur(fdst, sigmas, 21, out=fblur),
        "gaussian_blur (float64 batch, max_ksize 21)": lambda: augpy.gaussian_blur(ddst, sigmas, 21, out=dblur),
        "box_blur (float32 image, ksize 5)": lambda: augpy.box_blur_single(fdst0, 5, out=fbox),
        "box_blur (uint8 image, ksize 31: float taps)": lambda: augpy.box_blur_single(dst0, 31, out=box),
        "pil_gaussian_blur (batch, radii 0.1 .. 2)": lambda: augpy.pil_gaussian_blur(dst, radii, out=pil),
        "color_jitter (batch)": lambda: augpy.color_jitter(dst, brightness=jb, contrast=jc, saturation=js, hue=jh,
                                                           out=lit),
        "rgb_to_grayscale (batch)": lambda: augpy.rgb_to_grayscale(dst),
        "crop_mirror_normalize (images -> float32 CHW)": lambda: augpy.crop_mirror_normalize(
            srcs, crop=(th, tw), mirror=[i % 2 for i in range(n)], mean=[124.0, 116.0, 104.0],
            std=[58.0, 57.0, 57.0]),
        "lighting (float32 batch)": lambda: augpy.lighting(fdst, gg, gc, ct, 0, 1, out=flit),
        "invert (batch)": lambda: augpy.invert(dst, out=lit),
        "posterize (batch, 3 bits)": lambda: augpy.posterize(dst, 3, out=lit),
        "solarize (float32 batch)": lambda: augpy.solarize(fdst, 0.5, out=flit),
        "autocontrast (batch)": lambda: augpy.autocontrast(dst, out=lit),
        "equalize (batch)": lambda: augpy.equalize(dst, out=lit),
        "adjust_sharpness (batch)": lambda: augpy.adjust_sharpness(dst, 1.7, out=lit),
        "mix_mirror (float32 batch, MixUp)": lambda: augpy.mix_mirror(mixb, (0.7, 0.3)),
        "mix_mirror (float32 batch, per image: CutMix / MixUp)": lambda: augpy.mix_mirror(mixb, mix_w, mix_boxes),
    }
    peers = {name: [] for name in cases}
    torch = torch_cuda()
    tvf = peer("torchvision.transforms.v2.functional") if torch is not None else None
    if tvf is not None:
        timgs = torch.randint(0, 256, (n, 3, h, w), dtype=torch.uint8, device="cuda")
        tbatch = torch.randint(0, 256, (n, 3, th, tw), dtype=torch.uint8, device="cuda")
        peers["warp_affine (batch)"].append(("torchvision", time_torch(
            torch, lambda: tvf.resize(tvf.affine(timgs, angle=10.0, translate=[0, 0], scale=1.1, shear=[0.0]),
                                      [th, tw], antialias=False), args.reps, args.rounds), ""))
        peers["gaussian_blur (batch, max_ksize 21)"].append(("torchvision", time_torch(
            torch, lambda: tvf.gaussian_blur(tbatch, [21, 21], [1.75, 1.75]), args.reps, args.rounds), ""))
    else:
        for v in peers.values():
            v.append(("torchvision", None, "not installed or no GPU"))
    dali = peer("nvidia.dali")
    if dali is not None and torch is not None and not args.smoke:
        try:
            from nvidia.dali import fn, pipeline_def, types

            @pipeline_def(batch_size=n, num_threads=4, device_id=0)
            def warp_pipe():
                imgs = fn.external_source(source=lambda: [np.zeros((h, w, 3), np.uint8)] * n, device="gpu",
                                          layout="HWC", batch=True)
                return fn.warp_affine(imgs, matrix=[1.9, 0.3, 10.0, -0.3, 1.9, 5.0], size=[th, tw],
                                      fill_value=0, inverse_map=True, interp_type=types.INTERP_LINEAR)

            @pipeline_def(batch_size=n, num_threads=4, device_id=0)
            def blur_pipe():
                imgs = fn.external_source(source=lambda: [np.zeros((th, tw, 3), np.uint8)] * n, device="gpu",
                                          layout="HWC", batch=True)
                return fn.gaussian_blur(imgs, sigma=1.75, window_size=21)

            for key, pipe in (("warp_affine (batch)", warp_pipe()), ("gaussian_blur (batch, max_ksize 21)",
                                                                          blur_pipe())):
                pipe.build()
                peers[key].append(("DALI", time_wall(pipe.run, torch.cuda.synchronize, args.reps, args.rounds),
                                   ""))
        except Exception as e:  # a DALI build or API mismatch: say so, keep the rest
            for v in peers.values():
                v.append(("DALI", None, f"error: {e}"))
    else:
        for v in peers.values():
            v.append(("DALI", None, "not installed, no GPU, or --smoke"))
    for name, fn_ in cases.items():
        ms, cpu_ms = time_augpy(fn_, args.reps, args.rounds)
        row(name, ms, cpu_ms, peers[name])
        print(f"  {'':<44} {n / ms * 1e3:.0f} images/s")
        emu_row(fn_)


if __name__ == "__main__":
    main()
