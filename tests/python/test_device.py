"""Devices, streams, events, device properties and memory info on the CPU backend
(SPEC 4): the seed's CUDA API exists and works as no-ops where meaningful."""
import os
import threading

import pytest

import augpy

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
    assert p.multiProcessorCount == len(os.sched_getaffinity(0))
    assert p.numCudaCores == p.multiProcessorCount * p.coresPerMultiprocessor
    assert p.coresPerSM == p.coresPerMultiprocessor == 1
    assert p.totalGlobalMem == proc_meminfo("MemTotal")
    assert len(p.maxThreadsDim) == 3 and len(p.maxGridSize) == 3
    assert p.warpSize >= 1 and p.maxThreadsPerBlock >= 1
    assert p.leastStreamPriority == p.greatestStreamPriority == 0
    assert not p.streamPrioritiesSupported
    assert "CudaDeviceProp" in repr(p)
    with pytest.raises(AttributeError):
        p.major = 3
    assert augpy.CudaDevice(0).get_properties().name == p.name
    assert augpy.get_device_properties().totalGlobalMem == p.totalGlobalMem
    assert augpy.CudaDeviceProp().multiProcessorCount == p.multiProcessorCount


def test_meminfo():
    used, free, total = augpy.meminfo()
    assert used + free == total
    assert total == augpy.get_device_properties(0).totalGlobalMem
    assert 0 < free <= total
    assert augpy.meminfo(0)[2] == total


@pytest.mark.parametrize("func", [augpy.get_device_properties, augpy.meminfo, augpy.CudaDevice,
                                  augpy.CudaStream])
def test_invalid_device_ids(func):
    with pytest.raises(ValueError, match=r"invalid device_id 1"):
        func(1)
    with pytest.raises(TypeError, match=r"device_id must be an int, got str"):
        func("0")
    with pytest.raises(ValueError, match=r"invalid device_id"):
        func(2 ** 40)


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


def test_streams():
    default = augpy.get_current_stream()
    assert default is augpy.default_stream
    assert augpy.CudaStream(-1, -1) is augpy.default_stream
    s = augpy.CudaStream()
    assert s is not default and s.priority == 0 and s.device_id == 0
    assert augpy.CudaStream(priority=-5).priority == 0  # clipped to the CPU's range
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


def test_events():
    e = augpy.CudaEvent()
    assert e.record() is None
    assert e.query() is True
    assert e.synchronize() is None and e.synchronize(10) is None
    with pytest.raises(TypeError):
        augpy.CudaEvent(1)


def test_release_and_synchronize():
    t = augpy.CudaTensor(3)
    assert augpy.release() is None
    assert augpy.synchronize() is None and augpy.synchronize(0) is None
    t[:] = 1  # tensors stay valid on the CPU
    assert t.numpy().tolist() == [1, 1, 1]


def test_exceptions():
    for name in ["CudaError", "CuRandError", "CuBlasError", "MemoryError", "NvJpegError"]:
        exc = getattr(augpy, name)
        assert issubclass(exc, Exception) and exc.__module__ == "augpy"
    assert issubclass(augpy.MemoryError, MemoryError)
    assert augpy.JpegError is augpy.NvJpegError
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
