"""The version has one source (project(aug VERSION ...) in CMakeLists.txt): pyproject.toml reads it
with scikit-build-core's regex provider, the C library compiles it in (augpy.__version__), and the
installed metadata carries it. The wheel itself is checked by scripts/wheel_check.sh (make
wheel-check), which also runs this comparison on the installed wheel (wheel_smoke.py)."""
import importlib.metadata
import pathlib
import re
import sys

import pytest

import augpy

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib")
def test_version_single_sourced():
    import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    settings = pyproject["tool"]["scikit-build"]["metadata"]["version"]
    assert settings["provider"] == "scikit_build_core.metadata.regex" and settings["input"] == "CMakeLists.txt"
    m = re.search(settings["regex"], (ROOT / settings["input"]).read_text())
    assert m, f"{settings['regex']!r} does not match CMakeLists.txt"
    assert m.group("value") == augpy.__version__


def test_version_is_the_metadata():
    try:
        meta = importlib.metadata.version("augpy")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("augpy is not installed (a PYTHONPATH build)")
    assert augpy.__version__ == meta
