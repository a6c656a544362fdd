"""Devices, streams, events, device properties, memory info and launch settings
(semantics §4): the seed's CUDA API over the C device API. The suite runs on the default
device: on the CPU (where streams and events are complete as soon as a call
returns, and only device 0 exists) and, in `make pytest-emu`, on the emulated CUDA
devices (cuda:0 and cuda:1)."""
import math
import os
import threading
import time

import numpy as np
import pytest

import augpy

ON_CPU = augpy.Tensor(1).device == "cpu"
BACKEND = "cpu" if ON_CPU else "cuda"
DEVICE0 = "cpu" if ON_CPU else "cuda:0"


def device_count():
    n = 0
    while True:
        try:
            augpy.CudaDevice(n)
        except ValueError:
            return n
        n += 1


NDEV = device_count()
FIELDS = {  # every CudaDeviceProp field the manual lists, with its type
    "coresPerMultiprocessor": int, "coresPerSM": int, "greatestStreamPriority": int, "l2CacheSize": int,
    "leastStreamPriority": int, "major": int, "maxGridSize": tuple, "maxThreadsDim": tuple,
    "maxThreadsPerBlock": int, "maxThreadsPerMultiProcessor": int, "minor": int, "multiProcessorCount": int,
    "name": str, "numCudaCores": int, "regsPerBlock": int, "regsPerMultiprocessor": int,
    "sharedMemPerBlock": int, "sharedMemPerMultiprocessor": int, "streamPrioritiesSupported": bool,
    "totalConstMem": int, "totalGlobalMem": int, "warpSize": int,
}


def proc_meminfo(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


def test_device_properties():
    p = augpy.get_device_properties(0)
    assert isinstance(p, augpy.CudaDeviceProp)
    for name, typ in FIELDS.items():
        assert isinstance(getattr(p, name), typ), name
    assert p.name
    assert p.numCudaCores == p.multiProcessorCount * p.coresPerMultiprocessor
    assert p.coresPerSM == p.coresPerMultiprocessor
    assert len(p.maxThreadsDim) == 3 and p.maxGridSize == (2147483647, 65535, 65535)
    assert p.warpSize >= 1 and p.maxThreadsPerBlock >= 1
    assert p.greatestStreamPriority <= 0 <= p.leastStreamPriority
    assert p.streamPrioritiesSupported == (p.greatestStreamPriority < p.leastStreamPriority)
    if ON_CPU:  # the host: one "multiprocessor" with one "core" per usable core, host memory
        assert p.multiProcessorCount == len(os.sched_getaffinity(0))
        assert p.coresPerSM == 1
        assert p.totalGlobalMem == proc_meminfo("MemTotal")
        assert (p.major, p.minor, p.warpSize, p.maxThreadsPerBlock) == (0, 0, 1, 1)
        assert p.leastStreamPriority == p.greatestStreamPriority == 0
    else:
        assert p.major >= 3 and p.warpSize == 32 and p.maxThreadsPerBlock == 1024 and p.totalGlobalMem > 0
    assert "CudaDeviceProp" in repr(p)
    with pytest.raises(AttributeError):
        p.major = 3
    assert augpy.CudaDevice(0).get_properties().name == p.name
    assert augpy.get_device_properties().totalGlobalMem == p.totalGlobalMem
    assert augpy.get_device_properties(None).name == p.name
    assert augpy.CudaDeviceProp().multiProcessorCount == p.multiProcessorCount


def test_meminfo():
    used, free, total = augpy.meminfo()
    assert total == augpy.get_device_properties(0).totalGlobalMem
    assert 0 < free <= total and 0 <= used <= total
    if ON_CPU:
        assert used + free == total
    assert augpy.meminfo(0)[2] == total


def invalid_id_message(name, device_id):
    devices = "device 0 only" if NDEV == 1 else f"devices 0 to {NDEV - 1}"
    return rf"^{name}: invalid device_id {device_id} \(the {BACKEND} backend has {devices}\)$"


@pytest.mark.parametrize("func, name", [
    (augpy.get_device_properties, "get_device_properties"), (augpy.meminfo, "meminfo"),
    (augpy.CudaDevice, "CudaDevice"), (augpy.CudaStream, "CudaStream"), (augpy.synchronize, "synchronize"),
    (lambda i: augpy.Tensor(2, augpy.uint8, i), "Tensor"),
    (lambda i: augpy.zeros(2, device_id=i), "augpy.zeros"),
    (lambda i: augpy.array_to_tensor(np.zeros(2), i), "array_to_tensor"),
    (lambda i: augpy.RandomNumberGenerator(i), "RandomNumberGenerator")])
def test_invalid_device_ids(func, name):
    """device_id indexes the default backend's devices (only 0 on the CPU)."""
    with pytest.raises(ValueError, match=invalid_id_message(name, NDEV)):
        func(NDEV)
    with pytest.raises(ValueError, match=invalid_id_message(name, -2)):
        func(-2)
    with pytest.raises(TypeError, match=rf"^{name}: device_id must be an int( or None)?, got str"):
        func("0")
    with pytest.raises(TypeError, match=rf"^{name}: device_id must be an int"):
        func(True)
    with pytest.raises(ValueError, match=invalid_id_message(name, 2 ** 40)):
        func(2 ** 40)


# Written for sessions whose default device is device 0 (the cpu, cuda:0); the
# AUG_DEVICE=cuda:1 session (make pytest-emu) skips them.
on_device_0 = pytest.mark.skipif(augpy.Tensor(1).device_id != 0, reason="written for default device 0")


@on_device_0
def test_device_activation():
    assert augpy.get_current_device() == 0
    d = augpy.CudaDevice(0)
    assert d.get_device() == 0
    assert d.activate() is None
    assert augpy.get_current_device() == 0
    assert d.deactivate() is None
    with augpy.CudaDevice() as dev:
        assert dev.get_device() == 0
    assert d.synchronize() is None
    assert "CudaDevice 0" in repr(d)


@on_device_0
def test_streams():
    default = augpy.get_current_stream()
    assert default is augpy.default_stream
    assert augpy.CudaStream(-1, -1) is augpy.default_stream
    s = augpy.CudaStream()
    assert s is not default and s.priority == 0 and s.device_id == 0
    assert augpy.CudaStream(priority=0).priority == 0
    s.activate()
    assert augpy.get_current_stream() is s
    s2 = augpy.CudaStream(0, 0)
    with s2:
        assert augpy.get_current_stream() is s2
    assert augpy.get_current_stream() is s
    s.deactivate()
    assert augpy.get_current_stream() is augpy.default_stream
    s.deactivate()  # nothing to restore
    assert augpy.get_current_stream() is augpy.default_stream
    assert s.synchronize() is None and s.synchronize(0) is None and s.synchronize(microseconds=50) is None
    assert s.query() is True
    assert repr(augpy.default_stream) == "<CudaStream default>"
    assert repr(s) == "<CudaStream device_id=0, priority=0>"
    assert augpy.default_stream.handle == 0  # the legacy default stream, NULL
    assert (s.handle == 0) == ON_CPU  # a cudaStream_t on CUDA, none on the CPU


def test_stream_priorities():
    """Priorities within [greatestStreamPriority, leastStreamPriority] (lower is more
    urgent; the CPU's range is [0, 0]); outside it a ValueError names the value."""
    p = augpy.get_device_properties()
    for prio in range(p.greatestStreamPriority, p.leastStreamPriority + 1):
        assert augpy.CudaStream(0, prio).priority == prio
    for prio in (p.greatestStreamPriority - 1, p.greatestStreamPriority - 7, p.leastStreamPriority + 1, 2 ** 31 - 1):
        with pytest.raises(ValueError, match=rf"^CudaStream: priority {prio} is outside the range of {DEVICE0}: "):
            augpy.CudaStream(0, prio)
    with pytest.raises(ValueError, match=r"^CudaStream: priority = 1099511627776 is out of range"):
        augpy.CudaStream(priority=2 ** 40)
    with pytest.raises(TypeError, match=r"^CudaStream: priority must be an int"):
        augpy.CudaStream(priority=0.5)
    assert augpy.CudaStream(-1, -1) is augpy.default_stream  # the seed's spelling, not a priority


def test_streams_and_events_complete():
    """Waiting works on every backend; on the CPU everything is complete at once."""
    s = augpy.CudaStream()
    t = augpy.zeros((64, 64), augpy.float32)
    with s:
        t += 1
        if ON_CPU:
            assert s.query() is True
        for us in (100, 1, 0, -1):
            assert s.synchronize(us) is None
            assert s.query() is True
        e = augpy.CudaEvent()
        assert e.query() is True  # nothing recorded yet
        t += 1
        assert e.record() is None
        if ON_CPU:
            assert e.query() is True
        assert e.synchronize() is None and e.query() is True and e.synchronize(microseconds=0) is None
    for stream in (s, augpy.default_stream, None):
        e = augpy.CudaEvent()
        assert e.record(stream) is None and e.record(stream=stream) is None
        e.synchronize(1)
        assert e.query() is True
    assert augpy.default_stream.synchronize() is None and augpy.default_stream.query() is True
    assert t.numpy()[0, 0] == 2
    with pytest.raises(TypeError, match=r"^CudaEvent.record: stream must be a CudaStream or None, got int"):
        augpy.CudaEvent().record(0)
    with pytest.raises(TypeError, match=r"^CudaStream.synchronize: microseconds must be an int"):
        s.synchronize("1")
    with pytest.raises(TypeError):
        s.synchronize(1, 2)


def test_event_elapsed_time():
    start, end = augpy.CudaEvent(), augpy.CudaEvent()
    start.record()
    time.sleep(0.02)
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and math.isfinite(ms)
    assert 15.0 <= ms < 10000.0  # the sleep, measured
    assert start.elapsed_time(start) == 0.0
    with pytest.raises(TypeError, match=r"^CudaEvent.elapsed_time: end_event must be a CudaEvent, got str"):
        start.elapsed_time("x")
    # An event never recorded: the same ValueError on every backend (the core checks it).
    with pytest.raises(ValueError, match=r"^CudaEvent.elapsed_time: both events must have been recorded$"):
        start.elapsed_time(augpy.CudaEvent())


def test_streams_are_thread_local():
    s = augpy.CudaStream()
    seen = []

    def worker():
        seen.append(augpy.get_current_stream())
        s2 = augpy.CudaStream()
        s2.activate()
        seen.append(augpy.get_current_stream() is s2)

    with s:
        th = threading.Thread(target=worker)
        th.start()
        th.join()
        assert augpy.get_current_stream() is s
    assert seen == [augpy.default_stream, True]


def test_current_stream_per_thread_concurrently():
    """Each thread activates its own streams at the same time; each sees its own
    objects, nested, and the main thread's stream is untouched."""
    n = 8
    barrier = threading.Barrier(n)
    errors = []
    main = augpy.CudaStream()

    def worker(i):
        try:
            outer, inner = augpy.CudaStream(), augpy.CudaStream()
            assert augpy.get_current_stream() is augpy.default_stream
            with outer:
                barrier.wait()
                for _ in range(50):
                    assert augpy.get_current_stream() is outer
                    with inner:
                        assert augpy.get_current_stream() is inner
                        augpy.zeros(16).fill(i)
                    assert augpy.get_current_stream() is outer
                barrier.wait()
            assert augpy.get_current_stream() is augpy.default_stream
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    with main:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert augpy.get_current_stream() is main
    assert errors == []
    assert augpy.get_current_stream() is augpy.default_stream


def test_active_stream_is_kept_alive():
    s = augpy.CudaStream()
    s.activate()
    ident = id(s)
    del s
    cur = augpy.get_current_stream()
    assert id(cur) == ident and cur is not augpy.default_stream
    cur.deactivate()
    assert augpy.get_current_stream() is augpy.default_stream
    with augpy.default_stream:
        assert augpy.get_current_stream() is augpy.default_stream


def test_events():
    e = augpy.CudaEvent()
    assert e.record() is None
    assert e.synchronize() is None and e.synchronize(10) is None
    assert e.query() is True
    with pytest.raises(TypeError):
        augpy.CudaEvent(1)


def test_release_and_synchronize():
    t = augpy.Tensor(3)
    assert augpy.release() is None
    assert augpy.synchronize() is None and augpy.synchronize(0) is None
    assert augpy.synchronize(None) is None and augpy.synchronize(device_id=0) is None
    t[:] = 1  # live tensors stay valid: only cached memory is released
    assert t.numpy().tolist() == [1, 1, 1]


@pytest.mark.skipif(NDEV < 2, reason="needs two devices (make pytest-emu)")
@on_device_0
def test_second_device():
    """The current device and each device's current stream are separate per device."""
    s0, s1 = augpy.CudaStream(0), augpy.CudaStream(1)
    assert (s0.device_id, s1.device_id) == (0, 1)
    with s1:  # current on cuda:1; cuda:0 (the current device) keeps its stream
        assert augpy.get_current_stream() is augpy.default_stream
        with augpy.CudaDevice(1) as d:
            assert augpy.get_current_device() == 1 and d.get_device() == 1
            assert augpy.get_current_stream() is s1
            assert augpy.default_stream.device_id == 1
            e = augpy.CudaEvent()  # on cuda:1
            e.record()
            e.record(s1)
            with pytest.raises(ValueError, match=r"^CudaEvent.record: the stream is on cuda:0 but the event on cuda:1"):
                e.record(s0)
            t = augpy.zeros(4, device_id=1)
            t += 1
            augpy.synchronize()
            assert t.device == "cuda:1" and t.numpy().tolist() == [1, 1, 1, 1]
        assert augpy.get_current_device() == 0
        with s0:
            assert augpy.get_current_stream() is s0
        assert augpy.get_current_stream() is augpy.default_stream
    assert augpy.get_device_properties(1).name and augpy.meminfo(1)[2] > 0
    augpy.synchronize(1)



@pytest.mark.skipif(NDEV < 2, reason="needs two devices (make pytest-emu)")
@on_device_0
def test_second_device_streams_while_cuda0_is_current():
    """cuda:1's streams and events act on cuda:1 while cuda:0 is current (a cuda:0 op last
    made it the CUDA runtime's current device too), and cuda:1 waits for an event of cuda:0."""
    with augpy.CudaDevice(1):
        e1 = augpy.CudaEvent()
    t = augpy.zeros((1 << 20,), dtype=augpy.float32, device_id=1)
    for _ in range(4):
        t += 1  # queued on cuda:1's current (default) stream
    (augpy.zeros(4) + 1).numpy()  # cuda:0 work: cuda:0 is current everywhere
    e1.record()  # onto cuda:1's current stream, not cuda:0's
    e1.synchronize()
    assert e1.query() is True
    assert np.all(t.numpy() == 4)
    s1, e0 = augpy.CudaStream(1), augpy.CudaEvent()
    e0.record()
    s1.wait_event(e0)  # a stream of cuda:1 waits for cuda:0's work
    s1.synchronize()
    assert e0.query() is True
    with pytest.raises(ValueError, match=r"^CudaEvent.elapsed_time: the events are on different devices"):
        e1.elapsed_time(e0)

def test_exceptions():
    for name in ["CudaError", "CuRandError", "CuBlasError", "MemoryError", "NvJpegError", "DecodeError"]:
        exc = getattr(augpy, name)
        assert issubclass(exc, Exception) and exc.__module__ == "augpy"
    assert issubclass(augpy.MemoryError, MemoryError)
    assert augpy.JpegError is augpy.NvJpegError and issubclass(augpy.DecodeError, augpy.NvJpegError)
    with pytest.raises(MemoryError):
        raise augpy.MemoryError("x")


def test_num_threads():
    n = augpy.get_num_threads()
    assert n >= 1
    augpy.set_num_threads(1)
    assert augpy.get_num_threads() == 1
    augpy.set_num_threads(0)
    assert augpy.get_num_threads() == n
    with pytest.raises(TypeError, match=r"set_num_threads: expected an int"):
        augpy.set_num_threads("2")


def test_thread_num_threads():
    """set_thread_num_threads caps the calling thread's own calls; other threads (and new
    ones) keep no cap; bad values change nothing; a stage's decoder threads set theirs,
    never the caller's."""
    import io

    from PIL import Image

    from augpy.image import DecodeWarp

    assert augpy.get_thread_num_threads() == 0
    try:
        augpy.set_thread_num_threads(1)
        assert augpy.get_thread_num_threads() == 1
        seen = []
        t = threading.Thread(target=lambda: seen.append(augpy.get_thread_num_threads()))
        t.start()
        t.join()
        assert seen == [0]
        a = augpy.asarray(np.arange(4096 * 3, dtype=np.float32).reshape(64, 64, 3))
        out = augpy.Tensor((3, 32, 32), dtype=augpy.float32)
        m = np.array([[2, 0, 0], [0, 2, 0]], np.float32)
        augpy.warp_affine(a, out, m, None, 1)  # runs on this thread alone; same values
        augpy.set_thread_num_threads(0)
        ref = augpy.Tensor((3, 32, 32), dtype=augpy.float32)
        augpy.warp_affine(a, ref, m, None, 1)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())
        augpy.set_thread_num_threads(3)
        with pytest.raises(TypeError, match=r"set_thread_num_threads: expected an int"):
            augpy.set_thread_num_threads("2")
        with pytest.raises(ValueError, match=r"set_thread_num_threads: thread count 10{30} is out of range"):
            augpy.set_thread_num_threads(10**30)
        with pytest.raises(ValueError, match=r"set_thread_num_threads: 1000 threads requested; at most 256"):
            augpy.set_thread_num_threads(1000)

        class BadIndex:
            def __index__(self):
                raise RuntimeError("hostile")
        with pytest.raises(TypeError, match=r"set_thread_num_threads: expected an int"):
            augpy.set_thread_num_threads(BadIndex())
        assert augpy.get_thread_num_threads() == 3
        augpy.set_thread_num_threads(-7)
        assert augpy.get_thread_num_threads() == 0
        buf = io.BytesIO()
        Image.fromarray(np.zeros((40, 50, 3), np.uint8)).save(buf, format="JPEG")
        dw = DecodeWarp(4, (3, 16, 16), cpu_threads=2)
        dw({"image": [buf.getvalue()] * 4})
        caps = list(dw._pool.map(lambda _: augpy.get_thread_num_threads(), range(8)))
        assert set(caps) == {max(1, augpy.get_num_threads() // 2)}
        assert augpy.get_thread_num_threads() == 0
        dw.close()
    finally:
        augpy.set_thread_num_threads(0)


# ---- launch settings --------------------------------------------------------------------------

def launch_calls():
    """Every function taking blocks_per_sm / threads: (name, call(t, fail, **launch)),
    where fail=True makes the C call itself fail (shapes, axes, parameter values)."""
    rng = augpy.RandomNumberGenerator(seed=1)
    bad = augpy.zeros((3, 7), augpy.uint8)
    u8, f64 = augpy.zeros((4, 5), augpy.uint8), augpy.zeros((4, 5), augpy.float64)  # conversions run kernels

    def other(t, fail, value=None):
        return bad if fail else t if value is None else value
    return [
        ("add", lambda t, f, **k: augpy.add(t, other(t, f), **k)),
        ("rsub", lambda t, f, **k: augpy.rsub(t, other(t, f), **k)),
        ("div", lambda t, f, **k: augpy.div(t, other(t, f), **k)),
        ("lt", lambda t, f, **k: augpy.lt(t, other(t, f), **k)),
        ("fma", lambda t, f, **k: augpy.fma(2.0, t, other(t, f), **k)),
        ("fill", lambda t, f, **k: augpy.fill(other(t, f, 3), t, **k)),
        ("Tensor.fill", lambda t, f, **k: t.fill(other(t, f, 3), **k)),
        ("copy", lambda t, f, **k: augpy.copy(other(t, f, u8), t, **k)),
        ("cast", lambda t, f, **k: augpy.cast(t, other(t, f, f64), **k)),
        ("sum", lambda t, f, **k: augpy.sum(t, 5 if f else 0, **k)),
        ("Tensor.max", lambda t, f, **k: (t[:0] if f else t).max(**k)),
        ("uniform", lambda t, f, **k: rng.uniform(t, 10 if f else 0, 1, **k)),
        ("gaussian", lambda t, f, **k: rng.gaussian(t, 0, -1 if f else 1, **k)),
    ]


@pytest.mark.parametrize("name, call", launch_calls(), ids=[n for n, _ in launch_calls()])
def test_launch_settings_restored_after_a_call(name, call):
    """blocks_per_sm / threads are the thread's launch settings for the C call
    only (aug_set_launch); the previous ones come back afterwards, also when the
    call fails."""
    t = augpy.zeros((4, 5), augpy.float32)
    get, set_ = augpy._augpy._get_launch, augpy._augpy._set_launch
    before = get()
    try:
        set_(3, 96)
        call(t, False, blocks_per_sm=2, threads=128)
        assert get() == (3, 96)
        call(t, False)  # the signature's defaults, then back
        assert get() == (3, 96)
        call(t, False, blocks_per_sm=0, threads=0)  # 0 = automatic
        assert get() == (3, 96)
        with pytest.raises(ValueError):
            call(t, True, blocks_per_sm=1, threads=32)
        assert get() == (3, 96)
        with pytest.raises(ValueError, match=r"threads must be an int in \[0, 2147483647\], got -1"):
            call(t, False, threads=-1)
        with pytest.raises(TypeError, match=r"blocks_per_sm must be an int"):
            call(t, False, blocks_per_sm=1.0)
        assert get() == (3, 96)
    finally:
        set_(*before)


@pytest.mark.skipif(ON_CPU, reason="the CPU backend ignores launch settings")
@pytest.mark.parametrize("name, call", launch_calls(), ids=[n for n, _ in launch_calls()])
def test_launch_settings_reach_the_gpu(name, call):
    """threads=2048 is more than a GPU block holds: the launch itself fails, so the
    call's settings were the ones in force; the next call runs with its own."""
    t = augpy.zeros((4, 5), augpy.float32)
    with pytest.raises(augpy.CudaError, match="2048"):
        call(t, False, blocks_per_sm=1, threads=2048)
    assert augpy._augpy._get_launch() == (0, 0)
    call(t, False, blocks_per_sm=1, threads=64)
    call(t, False)
    augpy.synchronize()


def test_launch_settings_are_per_thread():
    seen = []
    augpy._augpy._set_launch(5, 64)  # the launch settings of this thread only
    try:
        th = threading.Thread(target=lambda: seen.append(augpy._augpy._get_launch()))
        th.start()
        th.join()
        assert seen == [(0, 0)] and augpy._augpy._get_launch() == (5, 64)
        with pytest.raises(ValueError, match=r"^_set_launch: threads must be >= 0"):
            augpy._augpy._set_launch(1, -1)
    finally:
        augpy._augpy._set_launch(0, 0)
