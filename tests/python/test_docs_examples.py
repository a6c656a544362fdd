"""Every ```python block of README.md and docs/*.md runs (documentation that a user
copies must work). Each block runs in a fresh namespace, in a temporary folder."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks():
    for path in FILES:
        for k, m in enumerate(BLOCK.finditer(path.read_text())):
            yield pytest.param(m.group(1), id=f"{path.relative_to(ROOT)}#{k}")


@pytest.mark.parametrize("code", list(blocks()))
def test_example_runs(code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "<example>", "exec"), {"__name__": "__example__"})
