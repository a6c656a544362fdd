"""The host-side draws and fills of device work (issue 30, "no host waits inside an op"): the
policy stages draw their own op lists on a device batch with no host wait (the stages' draws are
host decisions, made on a CPU generator: _sampling.generator_at), recording the ops the same seed
records on the CPU, and so do the other stages that draw through it (AugMix, RandomApply,
RandomCrop, RandomPerspective, RandomErasing, whose constant fill goes by value); the shuffle of
augpy.data draws the same order; and the warps (warp_affine,
warp_perspective, affine, rotate, perspective) and pad with a number or sequence fill on a
device image make no host wait (the fill stays on the host; pad fills by value). The counts
are the emulated CUDA runtime's host waits of the calling thread (AUG_CUDA_BACKEND=emu)."""

import numpy as np
import pytest

import augpy
from augpy import _augpy, _sampling
from augpy.image import (AugMix, AutoAugment, RandAugment, RandomApply, RandomCrop, RandomErasing, RandomGrayscale,
                         RandomPerspective, TimmAutoAugment, TimmRandAugment, TrivialAugmentWide)
from conftest import ON_CUDA, host_tensor, host_waits_of

needs_cuda = pytest.mark.skipif(not ON_CUDA, reason="the suite's device is the CPU")


STAGES = [("RandAugment", lambda: RandAugment(num_ops=3, seed=3, fill=(9, 8, 7))),
          ("TrivialAugmentWide", lambda: TrivialAugmentWide(seed=4)),
          ("AutoAugment", lambda: AutoAugment(seed=6)),
          ("TimmRandAugment", lambda: TimmRandAugment(num_ops=3, magnitude_std=0.5, seed=2)),
          ("TimmAutoAugment3a", lambda: TimmAutoAugment("3a", magnitude_std=0.5, seed=5))]


def test_generator_at_is_on_the_cpu_with_the_same_values():
    """The stages' generator is a CPU one at the state, drawing what a default-device generator
    at that state draws (the seed model, SPEC 11)."""
    state = (augpy.stream_seed(7, 2, "RandAugment"), 12345)
    rng, u = _sampling.generator_at(state, 5)
    assert "device=cpu" in repr(rng)
    ref = _augpy.RandomNumberGenerator(seed=state[0])  # on the default device (a CUDA one when emulated)
    ref.set_state(state)
    want = np.empty(5, np.float64)
    ref.uniform(want, 0.0, 1.0)
    assert u.tobytes() == want.tobytes()
    more, more_ref = np.empty(7, np.float32), np.empty(7, np.float32)
    rng.gaussian(more, 0.0, 1.0)
    ref.gaussian(more_ref, 0.0, 1.0)
    assert more.tobytes() == more_ref.tobytes() and rng.get_state() == ref.get_state()
    with pytest.raises(ValueError, match="set_state: state must be a \\(seed, calls\\) pair"):
        _augpy._host_generator((1, 2, 3))


def test_shuffle_order_unchanged():
    """augpy.data's shuffle draws on the host: the order a default-device generator gives."""
    values = np.empty(50, np.uint64)
    _augpy.RandomNumberGenerator(seed=augpy.stream_seed(11, 3, "shuffle")).uniform(values, 0.0, float(2 ** 64))
    want = np.argsort(values, kind="stable")
    assert augpy.data.epoch_order(50, 11, 3).tolist() == want.tolist()


@needs_cuda
@pytest.mark.parametrize("name,make", STAGES, ids=[s[0] for s in STAGES])
def test_policy_stage_draws_make_no_host_waits(name, make):
    """A policy stage drawing its own op lists on a device batch: no host wait once the pools are
    warm; the recorded ops and the images are those of the same seed and samples on the CPU."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, (12, 3, 30, 27)).astype(np.uint8)
    stage = make()
    key = stage.key  # the dicts' key of the ops an image ran
    stage({"image": augpy.array_to_tensor(x.copy())})  # warm: the pools, the staging ring
    dicts = [{"rng": (77, 1, 1000 + k)} for k in range(len(x))]
    dev = augpy.array_to_tensor(x.copy())
    waits, out = host_waits_of(lambda: stage({"image": dev, "augmentation": [dict(d) for d in dicts]}))
    assert waits == 0, name
    cpu = make()({"image": host_tensor(x.copy()), "augmentation": [dict(d) for d in dicts]})
    assert [a[key] for a in out["augmentation"]] == [a[key] for a in cpu["augmentation"]]
    assert len({str(a[key]) for a in cpu["augmentation"]}) > 1  # the draws differ per image
    assert augpy.tensor_to_array(out["image"]).tobytes() == augpy.tensor_to_array(cpu["image"]).tobytes()


OTHER_STAGES = [
    ("AugMix", lambda: AugMix(seed=1), "augmix"),
    ("RandomApply", lambda: RandomApply([RandomGrayscale(p=1.0)], p=0.5, key="gray", seed=2), "gray"),
    ("RandomCrop", lambda: RandomCrop(20, padding=2, fill=(5, 6, 7), seed=3), "random_crop"),
    ("RandomPerspective", lambda: RandomPerspective(p=1.0, fill=(1, 2, 3), seed=4), "perspective"),
    ("RandomErasing", lambda: RandomErasing(p=1.0, value=(10, 20, 30), seed=5), "erasing"),
    ("RandomErasing1", lambda: RandomErasing(p=1.0, value=77, seed=6), "erasing"),
]


@needs_cuda
@pytest.mark.parametrize("name,make,key", OTHER_STAGES, ids=[s[0] for s in OTHER_STAGES])
def test_stage_draws_make_no_host_waits(name, make, key):
    """The other stages drawing through generator_at (and RandomErasing's constant fill, by
    value) on a device batch: no host wait; the CPU's records and bytes."""
    x = np.random.default_rng(6).integers(0, 256, (8, 3, 30, 27)).astype(np.uint8)
    stage = make()
    stage({"image": augpy.array_to_tensor(x.copy())})  # warm
    dicts = [{"rng": (78, 0, 50 + k)} for k in range(len(x))]
    dev = augpy.array_to_tensor(x.copy())
    waits, out = host_waits_of(lambda: stage({"image": dev, "augmentation": [dict(d) for d in dicts]}))
    assert waits == 0, name
    cpu = make()({"image": host_tensor(x.copy()), "augmentation": [dict(d) for d in dicts]})
    assert [a[key] for a in out["augmentation"]] == [a[key] for a in cpu["augmentation"]]
    assert augpy.tensor_to_array(out["image"]).tobytes() == augpy.tensor_to_array(cpu["image"]).tobytes()


def dst_like(t):
    """A (3, 20, 22) uint8 dst on t's device."""
    d = augpy.empty((3, 20, 22), dtype=augpy.uint8)
    return d if d.device == t.device else d.to(t.device)


WARPS = [
    ("warp_affine", lambda t, fill: augpy.warp_affine(
        t, dst_like(t), np.array([[0.9, 0.2, 1.0], [-0.1, 1.1, 2.0]], np.float32),
        fill, layout="CHW", src_layout="CHW")),
    ("warp_perspective", lambda t, fill: augpy.warp_perspective(
        t, dst_like(t),
        np.array([[0.9, 0.2, 1.0], [-0.1, 1.1, 2.0], [0.001, 0.002, 1.0]], np.float32), fill, layout="CHW",
        src_layout="CHW")),
    ("affine", lambda t, fill: augpy.affine(t, angle=17.0, translate=(2, -3), scale=0.9, shear=(5.0, 0.0),
                                            fill=fill, layout="CHW")),
    ("rotate", lambda t, fill: augpy.rotate(t, 33.0, expand=True, fill=fill, layout="CHW")),
    ("perspective", lambda t, fill: augpy.perspective(t, [[0, 0], [20, 0], [20, 17], [0, 17]],
                                                      [[2, 1], [19, 3], [18, 16], [1, 15]], fill=fill,
                                                      layout="CHW")),
    ("pad", lambda t, fill: augpy.pad(t, (2, 1, 3, 0), fill=fill, layout="CHW")),
    ("pad_batch", lambda t, fill: augpy.pad(t.reshape((1, 3, 18, 21)), 2, fill=fill, layout="NCHW")),
]


@needs_cuda
@pytest.mark.parametrize("fill", [7, 3.5, (10, 200, 30), [1.0, 2.0, 3.0]], ids=["int", "float", "tuple", "list"])
@pytest.mark.parametrize("name,call", WARPS, ids=[w[0] for w in WARPS])
def test_warp_fill_makes_no_host_waits(name, call, fill):
    """A number or sequence fill of a warp (or pad) of a device image stays on the host: no host
    wait, and the CPU's bytes."""
    x = np.random.default_rng(1).integers(0, 256, (3, 18, 21)).astype(np.uint8)
    dev = augpy.array_to_tensor(x.copy())
    call(dev, fill)  # warm: the pools
    waits, out = host_waits_of(lambda: call(dev, fill))
    assert waits == 0, (name, fill)
    want = call(host_tensor(x.copy()), fill)
    assert augpy.tensor_to_array(out).tobytes() == augpy.tensor_to_array(want).tobytes()
