#!/usr/bin/env python3
"""scripts/gen_pyi.py [--check]: copy the runtime docstrings of augpy into its stubs.

A stub's module-level `__all__ = [...]` is set to its module's runtime __all__ too
(augpy/_augpy.pyi's: the extension's public names, which augpy/__init__.pyi adds to
its own).

The stubs (python/augpy/*.pyi) keep their type annotations; their docstrings are
the runtime's, written once: for the C extension (augpy/_augpy.pyi) the C text of
each function's PyMethodDef (whose "name(params)" line comes from its argument
spec, python/augpy/_augpy/argspec.c), for the Python modules with a stub
(image.py, data.py, ...) the .py docstrings. Every function, method and class of
a stub gets its runtime object's docstring (an overloaded function or a property
with a setter: on its first def only); one whose runtime object has none keeps
none. CPython's own docstrings (slot wrappers such as __lt__, a C type's __new__)
are not copied: those items keep what the stub has.

Run it with augpy importable (PYTHONPATH=BUILD/pkg after scripts/dev_build.sh);
it rewrites the stubs in python/augpy (or PACKAGE_DIR's). --check writes nothing
and exits 1 when a stub would change. tests/python/test_pyi_sync.py checks the
same agreement, and the signatures too.
"""
import argparse
import ast
import importlib
import inspect
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
# stub file -> the module whose objects it describes (augpy/__init__.pyi only re-exports)
STUBS = {
    "_augpy.pyi": "augpy._augpy",
    "image.pyi": "augpy.image",
    "data.pyi": "augpy.data",
    "targets.pyi": "augpy.targets",
    "torch.pyi": "augpy.torch",
    "ray.pyi": "augpy.ray",
    "math.pyi": "augpy.math",
    "_geometry.pyi": "augpy._geometry",
    "_affine.pyi": "augpy._affine",
    "_pad.pyi": "augpy._pad",
    "_crop.pyi": "augpy._crop",
    "_random_stages.pyi": "augpy._random_stages",
    "_perspective.pyi": "augpy._perspective",
}


# The runtime objects whose docstrings augpy writes: its C functions and methods (PyMethodDef),
# properties (PyGetSetDef, PyMemberDef, property) and types, and its Python functions and
# classes. CPython's own (slot wrappers such as __lt__, object.__new__) are left alone.
C_KINDS = ("builtin_function_or_method", "method_descriptor", "getset_descriptor", "member_descriptor")


def is_augpy(obj):
    """Whether obj's docstring is augpy's text."""
    if getattr(obj, "__name__", None) == "__new__" and type(obj).__name__ == "builtin_function_or_method":
        return False  # a C type's tp_new: CPython's generic text (the signature is the class's)
    if type(obj).__name__ in C_KINDS:
        return True
    if isinstance(obj, property):
        return True
    if inspect.isfunction(obj) or inspect.isclass(obj):
        return getattr(obj, "__module__", "").startswith("augpy")
    return False


def runtime_doc(obj):
    """The cleaned docstring of a runtime object, or None."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def is_overload(node):
    return any(isinstance(d, ast.Name) and d.id == "overload" or isinstance(d, ast.Attribute) and d.attr == "overload"
               for d in node.decorator_list)


def stub_items(tree):
    """(node, qualified name, is_first) for every def and class of a stub (module level, and the
    methods of its classes); is_first is False for the later overloads of a name."""
    seen = set()

    def walk(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = prefix + node.name
                yield node, q, q not in seen
                seen.add(q)
                if isinstance(node, ast.ClassDef):
                    yield from walk(node.body, q + ".")

    yield from walk(tree.body, "")


def resolve(module, qualname):
    """The runtime object of a stub's qualified name (class attributes looked up in the class's
    __dict__ first, so a method is not its base's); None when there is none."""
    obj = module
    for i, part in enumerate(qualname.split(".")):
        if isinstance(obj, type):
            nxt = None
            for klass in obj.__mro__:
                if part in vars(klass):
                    nxt = vars(klass)[part]
                    break
            if isinstance(nxt, (staticmethod, classmethod)):
                nxt = nxt.__func__
            obj = nxt
        else:
            obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def docstring_node(node):
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0]
    return None


def render(doc, indent):
    """doc as a triple-quoted docstring at indent (its later lines indented too)."""
    if '"""' in doc:
        raise ValueError(f'docstring with """: {doc[:60]!r}')
    prefix = "r" if "\\" in doc else ""
    lines = doc.split("\n")
    out = [indent + prefix + '"""' + lines[0]]
    out += [(indent + line) if line else "" for line in lines[1:]]
    out[-1] += '"""'
    return out


def render_all(names):
    """`__all__ = [...]` listing names, wrapped at 116 columns."""
    body = textwrap.wrap(", ".join(f'"{n}"' for n in names) + ",", 116, initial_indent="    ",
                         subsequent_indent="    ", break_on_hyphens=False)
    return ["__all__ = ["] + body + ["]"]


def all_edit(tree, module):
    """The edit that sets the stub's module-level `__all__ = [...]` to the runtime module's
    __all__ (in its order), or None when they hold the same names or either has none."""
    names = getattr(module, "__all__", None)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"] \
                and isinstance(node.value, ast.List) and names is not None:
            if sorted(getattr(e, "value", None) for e in node.value.elts) == sorted(names):
                return None
            return (node.lineno - 1, node.end_lineno - 1, render_all(names))
    return None


def rewrite(text, module):
    """The stub text with each item's docstring set to its runtime object's and its __all__
    to the runtime's (where the stub has one); (new text, missing)."""
    tree = ast.parse(text)
    lines = text.split("\n")
    edits = []  # (first line index, last line index inclusive, replacement lines) over 0-based lines
    missing = []
    edit = all_edit(tree, module)
    if edit:
        edits.append(edit)
    for node, qualname, first in stub_items(tree):
        obj = resolve(module, qualname)
        if obj is None:
            if not any(part.startswith("_") for part in qualname.split(".")):  # stub-only helpers (Protocols, TypedDicts) are private
                missing.append(qualname)
            continue
        if not is_augpy(obj):
            continue
        doc = runtime_doc(obj) if first else None  # a later overload or a property's setter: none
        current = docstring_node(node)
        body_indent = " " * (node.col_offset + 4)
        if current is not None:
            start, end = current.lineno - 1, current.end_lineno - 1
            if ast.get_docstring(node) == doc:
                continue
            new = render(doc, body_indent) if doc is not None else None
            if new is None:
                # the docstring goes; a body that only had it keeps `...`
                only = len(node.body) == 1
                new = [body_indent + "..."] if only else []
            # text before / after the docstring on its lines (a one-line `def f(): """doc"""`)
            head = lines[start][:current.col_offset]
            tail = lines[end][current.end_col_offset:]
            if head.strip():
                new = [head.rstrip()] + new
            if tail.strip():
                new = new + [body_indent + tail.strip()]
            edits.append((start, end, new))
        elif doc is not None:
            stmt = node.body[0]
            if stmt.lineno == node.lineno or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                                              and stmt.value.value is Ellipsis and len(node.body) == 1):
                # `def f(...) -> T: ...` (or `...` on its own line): the docstring replaces the `...`
                if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                        and stmt.value.value is Ellipsis and len(node.body) == 1):
                    raise ValueError(f"{qualname}: a one-line body other than `...`")
                line = lines[stmt.lineno - 1]
                head = line[:stmt.col_offset].rstrip()
                if head.strip():
                    edits.append((stmt.lineno - 1, stmt.end_lineno - 1, [head] + render(doc, body_indent)))
                else:
                    edits.append((stmt.lineno - 1, stmt.end_lineno - 1, render(doc, body_indent)))
            else:
                edits.append((stmt.lineno - 1, stmt.lineno - 2, render(doc, body_indent)))
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[start:end + 1] = new
    return "\n".join(lines), missing


def install_torch_standin():
    """augpy.torch imports torch: where it is not installed, the stand-in of the tests
    (tests/python/torch_standin.py, as test_stubs.py's stubtest run) takes its place."""
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    try:
        import torch_standin
        torch_standin.install()
    finally:
        sys.path.pop(0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when a stub would change")
    ap.add_argument("--package-dir", type=pathlib.Path, default=ROOT / "python" / "augpy")
    args = ap.parse_args(argv)
    changed = []
    install_torch_standin()
    for stub, modname in STUBS.items():
        path = args.package_dir / stub
        try:
            module = importlib.import_module(modname)
        except ImportError as e:  # augpy.ray / augpy.torch without their package
            print(f"{stub}: skipped ({modname} not importable: {e})", file=sys.stderr)
            continue
        text = path.read_text()
        new, missing = rewrite(text, module)
        if missing:
            print(f"{stub}: no runtime object for {', '.join(missing)}", file=sys.stderr)
        if new != text:
            changed.append(stub)
            if not args.check:
                path.write_text(new)
    print(("would change: " if args.check else "rewrote: ") + (", ".join(changed) or "nothing"))
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
