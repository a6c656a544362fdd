"""fork(), threads and DataLoader-style worker processes (issue 12).

Every check runs in a child interpreter with a timeout, so a deadlock fails the
test instead of hanging pytest. The os.fork checks fork 20 children while
another thread of the parent is inside a long call on a shared object (a decode,
a random fill, a multithreaded op); each child must then finish its own call on
that object. A child of a process that uses CUDA cannot use its parent's CUDA
context (CUDA itself forbids it), so the fork checks run the child interpreter on
the CPU backend; the emulated session checks separately that such a child gets a
CudaError at once instead of hanging.
"""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import ON_CUDA, UNDER_ASAN

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(code, timeout=120, cpu=False, script=None):
    """Run `code` (or the file `script`) in a fresh interpreter; returns its stdout. A hang or a
    non-zero exit fails."""
    env = dict(os.environ)
    if cpu:
        env["AUG_CUDA_BACKEND"] = "off"
        env.pop("AUG_REQUIRE_CUDA", None)
        env.pop("AUG_DEVICE", None)
    env["PYTHONWARNINGS"] = "ignore::DeprecationWarning"  # 3.12: "fork() with threads"
    argv = [sys.executable, str(script)] if script else [sys.executable, "-c", textwrap.dedent(code)]
    # a session of its own: on a timeout the whole group goes, forked grandchildren included
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=HERE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"child interpreter hung (> {timeout} s); output so far: {out!r} {err!r}")
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # leftovers (a hung grandchild) of a finished child
        except ProcessLookupError:
            pass
    assert p.returncode == 0, f"exit {p.returncode}\nstdout: {out}\nstderr: {err}"
    return out


# Forks `children` children while a thread of this process loops over BUSY;
# each child runs CHILD and exits 0, or exits 3 on an exception; a child still
# running after 20 s counts as hung (killed). Prints "hung H failed F ok K".
FORK_STRESS = """
import os, signal, sys, threading, time
import numpy as np
import augpy
{setup}
stop = threading.Event()
inside = threading.Event()
def busy():
    while not stop.is_set():
        inside.set()
{busy}
th = threading.Thread(target=busy)
th.start()
inside.wait()
hung = failed = ok = 0
for i in range(20):
    time.sleep(0.003 * (i % 7))
    pid = os.fork()
    if pid == 0:
        try:
{child}
        except BaseException as e:
            sys.stderr.write("child: %r\\n" % (e,))
            os._exit(3)
        os._exit(0)
    deadline = time.monotonic() + 20
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            if os.waitstatus_to_exitcode(status) == 0:
                ok += 1
            else:
                failed += 1
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            hung += 1
            break
        time.sleep(0.002)
stop.set()
th.join()
print("hung", hung, "failed", failed, "ok", ok)
"""


def fork_stress(setup, busy, child):
    # GCC 12's AddressSanitizer runtime does not lock its own allocator around fork(): a child
    # forked while another thread is inside malloc can hang in ASan itself (seen once in 80
    # children under `make pytest-asan`, never without ASan; LLVM's runtime gained at-fork
    # handlers later). These checks run in the plain sessions (CPU, cuda:0, cuda:1).
    if UNDER_ASAN:
        pytest.skip("fork while another thread allocates: the ASan runtime itself is not fork-safe")
    code = FORK_STRESS.format(setup=textwrap.dedent(setup), busy=textwrap.indent(textwrap.dedent(busy), " " * 8),
                              child=textwrap.indent(textwrap.dedent(child), " " * 12))
    out = run_child(code, timeout=300, cpu=True)
    assert out.split()[-6:] == ["hung", "0", "failed", "0", "ok", "20"], out


JPEG_SETUP = """
import io
from PIL import Image
def jpeg(h, w, seed):
    rng = np.random.default_rng(seed)
    img = Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=90)
    return buf.getvalue()
big = jpeg(1536, 1536, 1)       # tens of milliseconds per decode: the thread is mostly inside it
small = jpeg(32, 48, 2)
ref = np.asarray(Image.open(io.BytesIO(small)).convert("RGB"))
dec = augpy.Decoder()
"""


def test_fork_while_decoding_shared_decoder():
    fork_stress(JPEG_SETUP, "dec.decode(big)",
                "assert np.array_equal(dec.decode(small).numpy(), ref)")


def test_fork_while_filling_shared_generator():
    fork_stress(
        """
        rng = augpy.RandomNumberGenerator(seed=5)
        big = augpy.Tensor((4_000_000,), augpy.float32)
        small = augpy.Tensor((1000,), augpy.float32)
        """,
        "rng.uniform(big, 0.0, 1.0)",
        """
        rng.uniform(small, 2.0, 3.0)
        v = small.numpy()
        assert ((v >= 2.0) & (v < 3.0)).all() and len(set(v.tolist())) > 900
        """)


def test_fork_while_pool_runs_big_op():
    """The CPU pool: a child forked while a parent thread's job is running gets a fresh pool."""
    fork_stress(
        """
        augpy.set_num_threads(4) if hasattr(augpy, "set_num_threads") else None
        a = augpy.array_to_tensor(np.arange(3_000_000, dtype=np.float32))
        out = augpy.Tensor((3_000_000,), augpy.float32)
        """,
        "augpy.add(a, a, out=out)",
        """
        x = augpy.array_to_tensor(np.arange(1_000_000, dtype=np.int64))
        s = augpy.add(x, 1).numpy()
        assert s[0] == 1 and s[-1] == 1_000_000
        """)


def test_fork_decodewarp_threads():
    """DecodeWarp(cpu_threads=2) used in the parent, then in a forked child (a DataLoader worker)."""
    fork_stress(
        JPEG_SETUP + """
from augpy.image import DecodeWarp
dw = DecodeWarp(8, (3, 16, 16), cpu_threads=2)
for _ in range(3):
    dw({"image": [big] + [small] * 7})   # both decoder threads exist and are busy
""",
        "dec.decode(big)",
        """
        out = dw({"image": [small] * 8})["image"].numpy()
        assert out.shape == (8, 3, 16, 16) and out.any()
        """)


@pytest.mark.skipif(not ON_CUDA, reason="the emulated CUDA session only")
def test_forked_child_of_cuda_process_errors_at_once():
    """A child of a process using (emulated) CUDA gets an error (CudaError, or MemoryError from the
    memory pool), never a hang on the memory pool's lock,
    even when a parent thread was allocating at fork time."""
    code = FORK_STRESS.format(
        setup="",
        busy=" " * 8 + "augpy.Tensor((1 << 16,), augpy.uint8).numpy()",
        child=textwrap.indent(textwrap.dedent("""
            try:
                augpy.Tensor((1 << 16,), augpy.uint8).numpy()
            except (augpy.CudaError, MemoryError):  # the emulator's cudaMalloc fails after fork
                pass
            """), " " * 12))
    out = run_child(code, timeout=300)
    assert out.split()[-6:] == ["hung", "0", "failed", "0", "ok", "20"], out


# ---- the driver's fork rule (issue 26) ----------------------------------------------------------
# CUDA refuses a child forked after its parent initialised CUDA; a child of a parent that only
# looked at the devices can start CUDA itself. augpy decides the default device from the module's
# probe (NVML on a GPU, its stand-in on the emulation) without starting CUDA, so a DataLoader whose
# parent imported augpy but ran nothing on the GPU can use the GPU in forked workers. These run
# with the emulator's driver rule (AUG_EMU_FORK=driver): only a child of an initialised parent fails.

FORK_RULE = """
import os, sys, time
import numpy as np
import augpy
assert repr(augpy.CudaDevice()).endswith("(cuda)>"), repr(augpy.CudaDevice())  # the default device: cuda
assert augpy.cuda_status().startswith("ok:"), augpy.cuda_status()
{parent}
pid = os.fork()
if pid == 0:
    code = 0
    try:
        x = augpy.array_to_tensor(np.arange(1000, dtype=np.int32))
        assert x.device.startswith("cuda:"), x.device
        assert augpy.add(x, x).numpy().tolist() == list(range(0, 2000, 2))
        print("child: cuda ok", flush=True)
    except augpy.CudaError as e:
        print("child: CudaError:", e, flush=True)
        code = 4
    except BaseException as e:
        print("child: %r" % (e,), flush=True)
        code = 3
    # the CPU works in any child
    c = augpy.from_dlpack(np.arange(6, dtype=np.int64))
    assert c.device == "cpu" and augpy.add(c, 1).numpy().tolist() == [1, 2, 3, 4, 5, 6]
    print("child: cpu ok", flush=True)
    os._exit(code)
deadline = time.monotonic() + 60
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if time.monotonic() > deadline:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        print("child hung")
        sys.exit(1)
    time.sleep(0.01)
print("child exit", os.waitstatus_to_exitcode(status))
"""


def fork_rule(parent, **env):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return run_child(FORK_RULE.format(parent=textwrap.dedent(parent)), timeout=120)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.mark.skipif(not ON_CUDA, reason="CUDA sessions only")
def test_child_of_parent_that_only_chose_cuda_uses_cuda():
    """The parent imported augpy and its default device is cuda, but it ran nothing there: a
    forked child starts CUDA itself and runs an op (before: the parent had initialised CUDA at
    import, and the child failed)."""
    out = fork_rule("augpy.get_current_device(); augpy.Tensor", AUG_EMU_FORK="driver")
    assert "child: cuda ok" in out and "child: cpu ok" in out and "child exit 0" in out, out


@pytest.mark.skipif(not ON_CUDA, reason="CUDA sessions only")
def test_child_of_parent_that_ran_cuda_gets_spawn_error():
    """The parent ran an op on the GPU: the child's CUDA op raises a CudaError telling to use the
    'spawn' start method, at once; CPU ops work there."""
    out = fork_rule("augpy.add(augpy.array_to_tensor(np.arange(4)), 1).numpy()", AUG_EMU_FORK="driver")
    assert "child: CudaError:" in out and "child exit 4" in out and "child: cpu ok" in out, out
    line = next(x for x in out.splitlines() if x.startswith("child: CudaError:"))
    assert "before fork()" in line and "'spawn' method" in line and "DataLoader(multiprocessing_context='spawn')" \
        in line, line


@pytest.mark.skipif(os.environ.get("AUG_CUDA_BACKEND") != "emu" or not ON_CUDA, reason="the emulation's switch")
def test_emulator_fork_always_switch():
    """AUG_EMU_FORK=always (every child fails, as the emulator did before): the child's error,
    now from the runtime's own start, still names the 'spawn' method."""
    out = fork_rule("", AUG_EMU_FORK="always")
    assert "child: CudaError:" in out and "cudaErrorInitializationError" in out and "'spawn' method" in out, out
    assert "child: cpu ok" in out, out


@pytest.mark.skipif(os.environ.get("AUG_CUDA_BACKEND") != "emu" or not ON_CUDA, reason="the emulated devices")
@pytest.mark.parametrize("visible, count", [("1", 1), ("1,0", 2), ("0,7,1", 1), ("", 0), ("-1", 0), ("none", 0)])
def test_cuda_visible_devices(visible, count):
    """The probe's count (before CUDA starts) and the runtime's (after) agree, whatever
    CUDA_VISIBLE_DEVICES says; without a visible device augpy stays on the CPU."""
    code = """
        import numpy as np, augpy
        before = augpy.cuda_status()
        t = augpy.array_to_tensor(np.arange(3))
        print(before, "|", augpy.cuda_status(), "|", t.device)
        """
    env = {"CUDA_VISIBLE_DEVICES": visible}
    saved = os.environ.get("AUG_DEVICE")
    os.environ.pop("AUG_DEVICE", None)
    os.environ.update(env)
    try:
        out = run_child(code).strip()
    finally:
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        if saved is not None:
            os.environ["AUG_DEVICE"] = saved
    before, after, device = [x.strip() for x in out.split("|")]
    if count:
        assert before == after == f"ok: {count} CUDA device(s)" and device == "cuda:0", out
    else:
        assert before.startswith("no CUDA device (CUDA_VISIBLE_DEVICES=") and after == before and device == "cpu", out


# ---- multiprocessing workers (DataLoader style) -----------------------------------------------

MP_WORKER = """
import multiprocessing as mp, io, sys
sys.path.insert(0, {here!r})  # jpegref
import numpy as np
import augpy
from augpy.image import DecodeWarp
from PIL import Image
from jpegref import expected_rgb, mismatch

def jpeg(seed):
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (40, 56, 3), dtype=np.uint8)).save(buf, format="JPEG", quality=90)
    return buf.getvalue()

def op_task(n):
    x = augpy.array_to_tensor(np.arange(n, dtype=np.int32))
    return int(augpy.add(x, x).numpy().sum())

def decode_task(seed):
    data = jpeg(seed)
    d = augpy.Decoder()  # on 'nvjpeg': libjpeg-turbo's fast-upsampling pixels (jpegref.py)
    return mismatch(d.decode(data).numpy(), *expected_rgb(d.engine, data)) is None

_dw = None
def decodewarp_task(seed):
    global _dw
    if _dw is None:
        _dw = DecodeWarp(2, (3, 24, 24), cpu_threads=2)
    out = _dw({{"image": [jpeg(seed), jpeg(seed + 1)]}})["image"].numpy()
    return out.shape == (2, 3, 24, 24) and bool(out.any())

if __name__ == "__main__":
    ctx = mp.get_context("{method}")
    # the parent uses augpy (and DecodeWarp's threads) before the workers start
    parent_dw = DecodeWarp(2, (3, 24, 24), cpu_threads=2)
    parent_dw({{"image": [jpeg(0), jpeg(1)]}})
    op_task(10)
    with ctx.Pool(2) as pool:
        a = pool.map_async(op_task, [100_000, 200_000, 300_000, 400_000])
        b = pool.map_async(decode_task, range(4))
        c = pool.map_async(decodewarp_task, range(4))
        assert a.get(timeout=60) == [n * (n - 1) for n in (100_000, 200_000, 300_000, 400_000)]
        assert b.get(timeout=60) == [True] * 4
        assert c.get(timeout=60) == [True] * 4
    print("ok")
"""


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_multiprocessing_workers(method, tmp_path):
    script = tmp_path / "mp_workers.py"
    script.write_text(MP_WORKER.format(method=method, here=str(HERE)))
    env_cpu = method == "fork"  # a forked child cannot use the parent's CUDA context
    assert run_child(None, timeout=240, cpu=env_cpu, script=script).strip().endswith("ok")
