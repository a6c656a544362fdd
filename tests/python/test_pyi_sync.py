"""The stubs say what the runtime says: for every function and method of augpy's stubs
(python/augpy/_augpy.pyi for the C extension, image.pyi, data.pyi, ... for the Python
modules) the parameter names, their order and kinds and their defaults (as text) are those
of inspect.signature of the runtime object, and the docstring is the runtime's (the C text of
the function's PyMethodDef, whose signature line comes from its argument spec, argspec.c;
the .py docstring for a Python function). Every public function and method of the runtime
is in its stub. scripts/gen_pyi.py rewrites the stubs' docstrings from the runtime."""
import ast
import importlib
import inspect
import pathlib
import sys

import pytest

import augpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import gen_pyi  # noqa: E402  (scripts/gen_pyi.py: the stub list and the rules of what is augpy's text)

sys.path.pop(0)
PACKAGE = pathlib.Path(augpy.__file__).parent
HINT = "run scripts/gen_pyi.py (docstrings) or correct the stub (signatures)"


@pytest.fixture(scope="module", autouse=True)
def torch_importable():
    """augpy.torch imports torch: the tests' stand-in where it is not installed (as test_stubs)."""
    gen_pyi.install_torch_standin()


def load(stub):
    """(parsed stub, runtime module) of a stub of STUBS; skip where the module cannot be imported."""
    try:
        module = importlib.import_module(gen_pyi.STUBS[stub])
    except ImportError as e:
        pytest.skip(f"{gen_pyi.STUBS[stub]} is not importable: {e}")
    return ast.parse((PACKAGE / stub).read_text()), module


def default_text(node):
    return None if node is None else ast.unparse(node)


def stub_params(fn, in_class):
    """[(name, kind, default text or None)] of a stub def, without a method's self / cls."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = []
    for i, arg in enumerate(positional):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, default_text(defaults[i])))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", None))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", default_text(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", None))
    is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    return out[1:] if in_class and not is_static else out


def runtime_params(obj, in_class):
    """[(name, kind, default text or None)] of inspect.signature(obj), without self."""
    params = list(inspect.signature(obj).parameters.values())
    if in_class and params and params[0].name in ("self", "cls") and not isinstance(obj, staticmethod):
        params = params[1:]
    out = []
    for p in params:
        d = None if p.default is inspect.Parameter.empty else ast.unparse(ast.parse(repr(p.default), mode="eval"))
        out.append((p.name, p.kind.name, d))
    return out


def same_params(stub, runtime):
    """Whether a stub's parameters are the runtime's. A stub may write a default that is a
    container (a tuple of file extensions, ImageNet's mean) as `...`; None, bools, numbers and
    strings it writes out."""
    if len(stub) != len(runtime):
        return False
    for (sname, skind, sdef), (rname, rkind, rdef) in zip(stub, runtime):
        if (sname, skind) != (rname, rkind) or (sdef is None) != (rdef is None):
            return False
        if sdef != rdef and not (sdef == "..." and rdef[:1] in "([{"):
            return False
    return True


def items(stub):
    """(node, qualified name, is_first, in_class, runtime object) of every def of a stub that
    describes augpy's own object (gen_pyi.is_augpy)."""
    tree, module = load(stub)
    for node, qualname, first in gen_pyi.stub_items(tree):
        obj = gen_pyi.resolve(module, qualname)
        if obj is None or not gen_pyi.is_augpy(obj):
            continue
        yield node, qualname, first, "." in qualname, obj


@pytest.mark.parametrize("stub", sorted(gen_pyi.STUBS))
def test_signatures_match_the_runtime(stub):
    wrong = []
    for node, qualname, first, in_class, obj in items(stub):
        if not isinstance(node, ast.FunctionDef) or gen_pyi.is_overload(node) or not callable(obj):
            continue  # classes, properties, overloads (stubtest compares those)
        if any(isinstance(d, ast.Attribute) and d.attr == "setter" for d in node.decorator_list):
            continue
        try:
            got = runtime_params(obj, in_class)
        except (TypeError, ValueError):
            wrong.append(f"{qualname}: the runtime object has no signature")
            continue
        want = stub_params(node, in_class)
        if not same_params(want, got):
            wrong.append(f"{qualname}:\n  stub    {want}\n  runtime {got}")
    assert wrong == [], f"{stub} ({HINT}):\n" + "\n".join(wrong)


@pytest.mark.parametrize("stub", sorted(gen_pyi.STUBS))
def test_docstrings_are_the_runtime_ones(stub):
    wrong = []
    for node, qualname, first, in_class, obj in items(stub):
        want = gen_pyi.runtime_doc(obj) if first else None
        got = ast.get_docstring(node)
        if got != want:
            wrong.append(f"{qualname}:\n  stub    {got!r}\n  runtime {want!r}")
    assert wrong == [], f"{stub} ({HINT}):\n" + "\n".join(wrong)


def stub_names(stub):
    tree, _ = load(stub)
    return {qualname for _, qualname, _ in gen_pyi.stub_items(tree)}


def test_every_runtime_function_and_method_is_in_the_stub():
    names = stub_names("_augpy.pyi")
    missing = []
    for name, obj in vars(augpy._augpy).items():
        if name.startswith("_"):
            continue
        if getattr(obj, "__name__", name) != name:
            continue  # an alias (CudaTensor = Tensor): the stub declares it once
        if type(obj).__name__ == "builtin_function_or_method" and name not in names:
            missing.append(name)
        if isinstance(obj, type) and obj.__module__ == "augpy._augpy":
            for attr, member in vars(obj).items():
                if type(member).__name__ == "method_descriptor" and not attr.startswith("_") \
                        and f"{name}.{attr}" not in names:
                    missing.append(f"{name}.{attr}")
    assert missing == [], "public runtime callables without a stub: " + ", ".join(sorted(missing))


@pytest.mark.parametrize("stub", sorted(s for s in gen_pyi.STUBS if s != "_augpy.pyi"))
def test_every_public_python_function_is_in_the_stub(stub):
    names = stub_names(stub)
    _, module = load(stub)
    public = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
    missing = []
    for name in public:
        obj = getattr(module, name, None)
        if getattr(obj, "__name__", name) != name:
            continue  # an alias (Lightning = Lighting)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and gen_pyi.is_augpy(obj) and name not in names:
            # a name the stub re-exports from another module (`from .x import y as y`) is declared there
            if not any(isinstance(n, ast.alias) and (n.asname or n.name) == name
                       for n in ast.walk(load(stub)[0])):
                missing.append(name)
    assert missing == [], f"{stub}: public runtime names without a stub: " + ", ".join(sorted(missing))


def test_the_text_signature_comes_from_the_argument_spec():
    # the spec's first name shows in the signature, the aliases are accepted as keywords
    sig = inspect.signature(augpy.gaussian_blur)
    assert list(sig.parameters) == ["input", "sigmas", "max_ksize", "out"]
    assert sig.parameters["out"].default is None
    t = augpy.zeros((1, 1, 4, 4), dtype=augpy.float32)
    assert augpy.gaussian_blur(tensor=t, sigmas=[1.0], max_ksize=3).shape == (1, 1, 4, 4)
    # a keyword-only mark in the spec: in the signature and in the parser's positional limit
    params = inspect.signature(augpy._augpy.warp_affine).parameters
    assert params["interpolation"].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError, match=r"^augpy.warp_affine\(\) takes at most 5 positional arguments \(6 given\)"):
        augpy._augpy.warp_affine(t, t, [1, 0, 0, 0, 1, 0], None, 1, "linear")
    # a method's spec (without self) and the function's share the text
    assert str(inspect.signature(augpy.Tensor.sum)) == str(inspect.signature(augpy.sum)).replace(
        "(tensor, ", "(self, /, ")


def test_a_second_module_instance_keeps_the_signatures():
    # the docstrings are built once into the static method tables: executing the module
    # again (a re-import, a subinterpreter) neither fails on them nor signs them twice
    import importlib.util
    spec = importlib.util.find_spec("augpy._augpy")
    again = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(again)
    assert again is not augpy._augpy
    for name in ("gaussian_blur", "add", "sum", "reshape"):
        assert getattr(again, name).__text_signature__ == getattr(augpy._augpy, name).__text_signature__
        assert getattr(again, name).__doc__ == getattr(augpy._augpy, name).__doc__
    assert again.Tensor.sum.__text_signature__ == augpy.Tensor.sum.__text_signature__
