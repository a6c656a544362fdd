"""augpy's type stubs (python/augpy/*.pyi) are complete and exact: mypy.stubtest
compares them with the installed runtime (every name, signature, property and
class flag), with an allowlist only for the commented exceptions in
stubtest_allowlist.txt; every callable of the extension exposes a runtime
signature (__text_signature__), without which stubtest could not compare it; and
typical code type-checks under mypy --strict."""
import inspect
import pathlib
import subprocess
import sys

import pytest

import augpy

HERE = pathlib.Path(__file__).resolve().parent
pytest.importorskip("mypy", reason="mypy is a test dependency (PY_TEST_DEPS)")


def run_mypy(args, cwd):
    """python -m <args> in cwd (its cache stays there); (returncode, output)."""
    proc = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


def test_stubtest(tmp_path):
    rc, out = run_mypy(["mypy.stubtest", "augpy", "--allowlist", str(HERE / "stubtest_allowlist.txt")], tmp_path)
    assert rc == 0 and "Success" in out, out


def test_typical_code_type_checks(tmp_path):
    rc, out = run_mypy(["mypy", "--strict", "--no-error-summary", str(HERE / "stub_usage.py")], tmp_path)
    assert rc == 0, out


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
