"""Every Python block of README.md and docs/*.md runs (documentation that a user copies
must work): blocks fenced ```python and ```py, also indented ones (in lists). Each block
runs as written, as a script would (``__name__ == "__main__"``), in a fresh namespace, in a
temporary folder. Functions that worker processes need must be importable (a
functools.partial of augpy's, say): a block's own functions cannot be pickled for spawn.

- A block that imports torch (or augpy.torch) gets tests/python/torch_standin.py when
  torch is missing (installed for that block only).
- A block that uses Ray gets a local 2-CPU cluster (started once, for the first such
  block); the block's own ``ray.init(...)`` then connects to it, as
  ``ray.init(address="auto")`` would (ray.init is wrapped, while the block runs, to
  return the running cluster's context instead of raising "called ray.init twice").
- A block opts out only with ``# doc-test: skip (reason)`` as its first line, and every
  such marker must be listed in SKIPS below with its file: skips are for blocks that
  need what this machine cannot have (a GPU, a cloud bucket, a package the project does
  not install), never for blocks that merely fail.
- Under ASan (`make pytest-asan`) blocks that start processes (Ray, DataLoader workers,
  multiprocessing) skip: GCC 12's libasan is not fork-safe (test_fork.py).
"""
import os
import pathlib
import re
import sys

import pytest
from conftest import UNDER_ASAN

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?:python|py)[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"#\s*doc-test\b")
SKIP_LINE = re.compile(r"# doc-test: skip \((?P<reason>[^()]*\S[^()]*)\)\s*$")

# Every opted-out block, by file and reason. Adding a skip means adding it here, in review.
SKIPS = {
    ("docs/torchvision.md", "needs torchvision"),
    ("docs/scale-out.md", "needs a GPU per Ray actor"),
    ("docs/scale-out.md", "needs a Ray cluster and the wheel"),
}

USES_TORCH = re.compile(r"^\s*(?:import|from)\s+torch\b|\baugpy\.torch\b", re.M)
USES_RAY = re.compile(r"^\s*(?:import|from)\s+ray\b|\baugpy\.ray\b", re.M)
STARTS_PROCESSES = re.compile(r"num_workers\s*=\s*[1-9]|\bmultiprocessing\b|\bProcessPool")


def iter_blocks():
    """(file relative to the root, line of the fence, code, skip reason or None)."""
    for path in FILES:
        text = path.read_text()
        rel = str(path.relative_to(ROOT))
        for m in FENCE.finditer(text):
            indent = m.group("indent")
            lines = m.group("body").splitlines(keepends=True)
            code = "".join(ln[len(indent):] if ln.startswith(indent) else ln.lstrip(" \t") for ln in lines)
            lineno = text.count("\n", 0, m.start()) + 1
            first = code.split("\n", 1)[0]
            skip = SKIP_LINE.match(first)
            yield rel, lineno, code, (skip.group("reason") if skip else None)


BLOCKS = list(iter_blocks())


def test_blocks_found():
    """The extractor sees the blocks (a regex slip must not make this suite vacuous)."""
    files = {rel for rel, *_ in BLOCKS}
    assert {"README.md", "docs/scale-out.md", "docs/torchvision.md"} <= files
    assert len(BLOCKS) >= 40


def test_skips_are_listed_and_justified():
    """Only a first line `# doc-test: skip (reason)` opts out, and only as listed in SKIPS;
    a marker anywhere else, or misspelt, is an error (it would silently not skip)."""
    found = set()
    for rel, lineno, code, reason in BLOCKS:
        lines = code.splitlines()
        for k, line in enumerate(lines):
            if MARKER.search(line) and not (k == 0 and reason is not None):
                pytest.fail(f"{rel}:{lineno + 1 + k}: a doc-test marker must be the block's first line and read "
                            f"'# doc-test: skip (reason)', got {line!r}")
        if reason is not None:
            found.add((rel, reason))
    assert found == SKIPS, f"skipped blocks {sorted(found)} != the justified list SKIPS {sorted(SKIPS)}"


@pytest.fixture(scope="module")
def ray_cluster():
    """A local 2-CPU Ray cluster whose workers import augpy from where this process does."""
    if UNDER_ASAN:
        pytest.skip("Ray's fork + exec of its own processes under libasan (see test_fork.py)")
    try:
        import ray
    except ImportError:
        if os.environ.get("AUGPY_ALLOW_NO_RAY") == "1":
            pytest.skip("ray is not installed (AUGPY_ALLOW_NO_RAY=1)")
        raise
    env = {k: os.environ[k] for k in ("PYTHONPATH", "AUG_CUDA_MODULE", "AUG_CUDA_BACKEND", "AUG_REQUIRE_CUDA",
                                      "AUG_DEVICE") if k in os.environ}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env},
             configure_logging=False)
    yield ray
    ray.shutdown()


def _connect_to(ray, cluster_init):
    """ray.init as the block calls it, connecting to the running cluster."""
    def init(*args, **kwargs):
        return ray.get_runtime_context() if ray.is_initialized() else cluster_init(*args, **kwargs)
    return init


@pytest.mark.parametrize("rel, lineno, code, reason",
                         [pytest.param(*b, id=f"{b[0]}:{b[1]}") for b in BLOCKS])
def test_example_runs(rel, lineno, code, reason, tmp_path, monkeypatch, request):
    if reason is not None:
        pytest.skip(f"# doc-test: skip ({reason})")
    uses_ray = bool(USES_RAY.search(code))
    if UNDER_ASAN and (uses_ray or STARTS_PROCESSES.search(code)):
        pytest.skip("starts processes: not under libasan (see test_fork.py)")
    monkeypatch.chdir(tmp_path)
    if uses_ray:
        ray = request.getfixturevalue("ray_cluster")
        monkeypatch.setattr(ray, "init", _connect_to(ray, ray.init))
    standin = None
    if USES_TORCH.search(code):
        import torch_standin
        if torch_standin.is_standin(torch_standin.install()["torch"]):
            standin = torch_standin
    try:
        # tracebacks name the Markdown file and its line numbers
        # run as a script: `if __name__ == "__main__":` blocks run
        exec(compile("\n" * lineno + code, str(ROOT / rel), "exec"), {"__name__": "__main__"})
    finally:
        if standin is not None:
            standin.uninstall()  # also drops augpy.torch, which bound the stand-in
            sys.modules.pop("augpy.torch", None)
