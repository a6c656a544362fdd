"""Moving data between devices and the host: Tensor.to / cpu / cuda, augpy.copy
across devices, numpy(blocking=False), host arrays as operands of device ops,
and the errors of mixing device tensors. Runs in the CPU session (where the
CUDA parts skip) and on the emulated devices of `make pytest-emu`."""
import numpy as np
import pytest

import augpy
from conftest import DEVICE, DEVICE_ID, ON_CUDA

CUDA_COUNT = int(augpy.cuda_status().split()[1]) if augpy.cuda_status().startswith("ok:") else 0


def test_to_and_cpu_on_own_device():
    t = augpy.array_to_tensor(np.arange(6, dtype=np.int16).reshape(2, 3))
    assert t.to(DEVICE) is t
    assert t.to(DEVICE_ID) is t  # a device_id of the default backend
    c = t.cpu()
    assert c.device == "cpu" and (c is t) == (not ON_CUDA)
    np.testing.assert_array_equal(c.numpy(), np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("spec, exc, msg", [
    ("gpu", ValueError, r"^Tensor.to: device must be 'cpu', 'cuda' or 'cuda:N', got 'gpu'$"),
    ("cuda:x", ValueError, r"^Tensor.to: device must be 'cpu', 'cuda' or 'cuda:N', got 'cuda:x'$"),
    ("cuda:99", ValueError, r"^Tensor.to: device 'cuda:99' does not exist"),
    (1.5, TypeError, r"^Tensor.to: device must be 'cpu', 'cuda', 'cuda:N' or a device_id int, got float$"),
    (99, ValueError, r"^Tensor.to: invalid device_id 99"),
])
def test_to_errors(spec, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.Tensor(3).to(spec)


def test_tuple_and_list_operands():
    t = augpy.array_to_tensor(np.array([1, 2, 3], np.uint8))
    np.testing.assert_array_equal((t + (1, 2, 250)).numpy(), [2, 4, 253])  # an int64 array operand
    np.testing.assert_array_equal(((10, 20, 30) - t).numpy(), [9, 18, 27])
    np.testing.assert_array_equal(augpy.array_to_tensor((4, 5)).numpy(), [4, 5])
    t[:] = (7, 8, 9)
    np.testing.assert_array_equal(t.numpy(), [7, 8, 9])


def test_host_arrays_go_to_the_tensors_device():
    t = augpy.array_to_tensor(np.array([[1, 2], [3, 4]], np.int32))
    r = t * np.array([10, 100], np.int32)  # broadcast host operand
    assert r.device == DEVICE
    np.testing.assert_array_equal(r.numpy(), [[10, 200], [30, 400]])
    t[0] = np.array([-1, -2])
    augpy.copy(np.array([[5], [6]]), t[:, 1:])
    np.testing.assert_array_equal(t.numpy(), [[-1, 5], [3, 6]])
    out = augpy.Tensor((2, 2), augpy.int32)
    assert augpy.add(t, np.ones(2, np.int32), out=out) is out
    np.testing.assert_array_equal(out.numpy(), [[0, 6], [4, 7]])


@pytest.mark.skipif(not ON_CUDA, reason="needs a CUDA device")
def test_cross_device_copies_and_mixing_errors():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    g = augpy.array_to_tensor(a)
    c = g.cpu()
    assert c.device == "cpu" and c.layout == g.layout
    back = c.to(DEVICE)
    assert back.device == DEVICE and back.ptr != g.ptr
    assert c.to("cuda").device == "cuda:0"
    np.testing.assert_array_equal(back.numpy(), a)
    # strided views are packed on the way
    v = g[:, ::2, ::-1]
    np.testing.assert_array_equal(v.cpu().numpy(), a[:, ::2, ::-1])
    # augpy.copy between devices, with a dtype change and broadcasting
    dst = augpy.Tensor((2, 3, 4), augpy.uint8)
    augpy.copy(c[0], dst)
    np.testing.assert_array_equal(dst.numpy(), np.broadcast_to(a[0], (2, 3, 4)))
    with pytest.raises(ValueError, match=rf"^Tensor.__add__: operands are on different devices \(({DEVICE} and cpu|"
                                         rf"cpu and {DEVICE})\)"):
        g + c
    assert g.cuda(DEVICE_ID) is g and c.cuda().device == "cuda:0"


@pytest.mark.skipif(CUDA_COUNT < 2, reason="needs two CUDA devices")
def test_second_device():
    other = 1 - DEVICE_ID  # the emulation's two devices: the one the session does not default to
    g = augpy.array_to_tensor(np.arange(5, dtype=np.int64))
    g1 = g.to(f"cuda:{other}")
    assert g1.device == f"cuda:{other}"
    np.testing.assert_array_equal((g1 * 2).numpy(), np.arange(5) * 2)
    assert g.cuda(other).device == f"cuda:{other}"
    np.testing.assert_array_equal(g1.to(DEVICE_ID).numpy(), np.arange(5))
    with pytest.raises(ValueError, match=r"operands are on different devices"):
        g + g1


def test_numpy_waits_for_queued_writes():
    """numpy() / cpu() / int() of a tensor still being written return its final values."""
    t = augpy.zeros((1 << 16,), dtype=augpy.float32)
    for _ in range(8):
        t += 0.25  # queued on the current stream; nothing waits here
    assert np.all(t.numpy() == 2.0)
    t *= 2
    assert np.all(t.cpu().numpy() == 4.0)
    t += 1
    assert float(t[-1]) == 5.0


def test_numpy_nonblocking():
    t = augpy.zeros((1000,), dtype=augpy.float32)
    for _ in range(4):
        t += 0.5  # queued work the copy must follow
    arr = t.numpy(blocking=False)
    augpy.synchronize()
    assert arr.dtype == np.float32 and arr.shape == (1000,)
    assert np.all(arr == 2.0)
    s = augpy.Tensor((3, 0), augpy.uint8).numpy(blocking=False)
    augpy.synchronize()
    assert s.shape == (3, 0)
    if ON_CUDA:  # page-locked memory the array keeps alive
        base = arr
        while isinstance(base, np.ndarray) and base.base is not None:
            base = base.base
        base = base.obj if isinstance(base, memoryview) else base
        assert type(base).__name__ == "HostBuffer"


def test_transpose_views():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    t = augpy.array_to_tensor(a)
    t.layout = "NHW"
    for axes in [(), (2, 0, 1), ((1, 0, 2),), (-1, -2, -3), ([0, 2, 1],)]:
        v = t.transpose(*axes)
        ref = a.transpose(*axes)
        assert v.shape == ref.shape and v.ptr == t.ptr
        np.testing.assert_array_equal(v.numpy(), ref)
    assert t.transpose(2, 0, 1).layout == "WNH"
    for bad, exc, msg in [((0, 1), ValueError, r"axes don't match the tensor: 2 axes for 3 dimensions"),
                          ((0, 0, 1), ValueError, r"repeated axis 0"),
                          ((0, 1, 3), ValueError, r"axis 3 is out of bounds for a tensor of dimension 3"),
                          (("a",), TypeError, r"axes must be ints or one sequence of ints, got str")]:
        with pytest.raises(exc, match=r"^Tensor.transpose: " + msg):
            t.transpose(*bad)


def test_cuda_status_and_decoder_engine():
    status = augpy.cuda_status()
    assert status.startswith("ok:") == ON_CUDA
    engine = augpy.Decoder().engine
    assert engine == ("libjpeg-turbo" if not ON_CUDA else engine)
    assert engine in ("libjpeg-turbo", "nvjpeg", "libjpeg-turbo+upload")
