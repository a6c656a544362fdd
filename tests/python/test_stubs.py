"""augpy's type stubs (python/augpy/*.pyi) are complete and exact: mypy.stubtest
compares them with the installed runtime (every name, signature, property and
class flag) of every module, augpy.torch included (against torch_standin.py where
torch is not installed), with an allowlist only for the commented exceptions in
stubtest_allowlist.txt; every callable of the extension exposes a runtime
signature (__text_signature__), without which stubtest could not compare it; the
stubs themselves pass mypy --strict; typical code (stub_usage.py) type-checks under
mypy --strict, and wrong code (stub_errors.py) gets exactly the errors it is marked
with."""
import inspect
import os
import pathlib
import re
import subprocess
import sys

import pytest

import augpy

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE = pathlib.Path(augpy.__file__).parent
pytest.importorskip("mypy", reason="mypy is a test dependency (PY_TEST_DEPS)")

# The Python modules of augpy that carry a stub (their functions are not annotated inline).
STUBBED_MODULES = ("image", "data", "targets", "torch", "ray", "math", "_geometry")

# stubtest with torch importable: augpy.torch imports torch, so without it stubtest could not
# compare augpy/torch.pyi with the module; torch_standin.install() puts the stand-in in place
# only where `import torch` fails.
STUBTEST = """
import sys
sys.path.insert(0, sys.argv[1])
import torch_standin
torch_standin.install()
from mypy.stubtest import main
sys.argv = ["stubtest", "augpy", "--allowlist", sys.argv[2]]
sys.exit(main())
"""


def run_mypy(args, cwd, env=None):
    """python <args> in cwd (its cache stays there); (returncode, output)."""
    proc = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=None if env is None else dict(os.environ, **env))
    return proc.returncode, proc.stdout + proc.stderr


def test_every_module_has_its_stub():
    missing = [name for name in STUBBED_MODULES if not (PACKAGE / f"{name}.pyi").is_file()]
    assert missing == [], (f"{PACKAGE} has no stub for {missing}: a development build links the files of "
                           f"python/augpy when it is made (scripts/dev_build.sh); make it again")


def test_stubtest(tmp_path):
    rc, out = run_mypy(["-c", STUBTEST, str(HERE), str(HERE / "stubtest_allowlist.txt")], tmp_path)
    assert rc == 0 and "Success" in out, out


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory):
    """One mypy --strict run over stub_usage.py, stub_errors.py (found through MYPYPATH) and
    every stub of the installed package: {file name: [(line, error code, message)]}."""
    stubs = sorted(p.stem for p in PACKAGE.glob("*.pyi"))
    modules = ["stub_usage", "stub_errors"] + ["augpy" if s == "__init__" else f"augpy.{s}" for s in stubs]
    args = ["-m", "mypy", "--strict", "--follow-imports=silent", "--show-error-codes", "--no-error-summary",
            "--no-pretty", "--hide-error-context"]
    for m in modules:
        args += ["-m", m]
    rc, out = run_mypy(args, tmp_path_factory.mktemp("mypy"), env={"MYPYPATH": str(HERE)})
    errors = {}
    for line in out.splitlines():
        m = re.match(r"(.+?):(\d+): error: (.*?)  \[([a-z-]+)\]$", line)
        if m:
            errors.setdefault(os.path.basename(m.group(1)), []).append((int(m.group(2)), m.group(4), m.group(3)))
        elif ": note: " not in line:
            errors.setdefault("(mypy)", []).append((0, "", line))
    assert rc in (0, 1), out  # 2: mypy itself failed
    return errors


def test_typical_code_type_checks(mypy_report):
    assert mypy_report.get("stub_usage.py", []) == []


def test_stubs_pass_strict_mypy(mypy_report):
    other = {name: errs for name, errs in mypy_report.items() if name not in ("stub_usage.py", "stub_errors.py")}
    assert other == {}


def test_wrong_code_is_rejected(mypy_report):
    expected = {}
    for number, line in enumerate((HERE / "stub_errors.py").read_text().splitlines(), 1):
        m = re.search(r"# E: ([a-z-]+)$", line)
        if m:
            expected[number] = m.group(1)
    assert len(expected) >= 20
    got = {}
    for number, code, message in mypy_report.get("stub_errors.py", []):
        got.setdefault(number, []).append(f"{code}: {message}")
    unexpected = {n: msgs for n, msgs in got.items() if n not in expected}
    missed = {n: code for n, code in expected.items() if not any(m.startswith(code + ":") for m in got.get(n, []))}
    assert unexpected == {} and missed == {}, (unexpected, missed)


def runtime_callables():
    """(qualified name, object) of every function, type and method of augpy._augpy."""
    mod = augpy._augpy
    for name, obj in sorted(vars(mod).items()):
        if name.startswith("__") or not callable(obj):
            continue
        if isinstance(obj, type) and (issubclass(obj, BaseException) or obj is augpy.DLDataTypeCode):
            continue  # Python-level classes: signatures from their (builtin) bases
        yield name, obj
        if isinstance(obj, type):
            for attr, member in sorted(vars(obj).items()):
                if callable(member) and attr != "__new__" and type(member).__name__ == "method_descriptor":
                    yield f"{name}.{attr}", member


def test_every_callable_has_a_runtime_signature():
    missing = []
    for name, obj in runtime_callables():
        try:
            inspect.signature(obj)
        except (ValueError, TypeError):
            missing.append(name)
    assert missing == [], "docstrings without a 'name(args)\\n--\\n\\n' signature line: " + ", ".join(missing)
