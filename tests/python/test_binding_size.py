"""No function of the binding (python/augpy/_augpy/*.c) is over 120 lines (issue 27): a function
is counted from its first line at column 0 (the return type, or the signature's first line) to its
closing brace at column 0, so a long one fails here and is split into named helpers."""
import pathlib
import re

import pytest

LIMIT = 120
SRC = pathlib.Path(__file__).resolve().parents[2] / "python" / "augpy" / "_augpy"


def _code(text):
    """text with comments, string and char literals and preprocessor lines blanked (newlines kept)."""
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.M)
    pat = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pat.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def functions(text):
    """(name, first line, line count) of each function definition in C source text: from the first
    line of its head (return type and signature) to the line of its closing brace."""
    code = _code(text)
    out, depth, head_start, open_at = [], 0, None, None
    for i, ch in enumerate(code):
        if depth == 0 and head_start is None and not ch.isspace():
            head_start = i
        if ch == "{":
            if depth == 0:
                open_at = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                head = code[head_start:open_at]
                m = re.search(r"\b(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$", head)
                if m and "=" not in head:
                    first = code.count("\n", 0, head_start) + 1
                    out.append((m.group(1), first, code.count("\n", 0, i) + 2 - first))
                head_start = None
        elif ch == ";" and depth == 0:
            head_start = None
    return out


def test_counter_counts_multiline_signatures():
    src = ("/* c { */\nstatic int f(int a,\n          int b) {\n    return a + b; /* } */\n}\nint g(void);\n"
           "static const int t[] = {\n    1,\n};\nint h(void)\n{\n    const char *s = \"}\";\n    return 0;\n}\n"
           "typedef struct {\n    int (*fn)(int);\n} S;\n#define M(x) { (x) }\n"
           "static struct s *k(void) {\n    if (1) {\n        return 0;\n    }\n}\n")
    assert functions(src) == [("f", 2, 4), ("h", 10, 5), ("k", 19, 5)]


def test_no_binding_function_over_120_lines():
    files = sorted(SRC.glob("*.c"))
    if not files:
        pytest.skip("the binding's sources are not beside this test")
    found = [(p.name, name, first, n) for p in files for name, first, n in functions(p.read_text())]
    assert len(found) > 200  # the counter sees the binding's functions
    long = [f"{f}:{first} {name} has {n} lines" for f, name, first, n in found if n > LIMIT]
    assert not long, "binding functions over %d lines (split them into named helpers):\n%s" % (LIMIT, "\n".join(long))
