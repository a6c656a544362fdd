/* _augpy/dtype.c: augpy.DLDataType, augpy.DLDataTypeCode and the dtype helpers.
 *
 * There is exactly one DLDataType object per aug dtype (augpy.uint8 ...), so
 * `t.dtype is augpy.uint8` holds; DLDataType(code, bits, lanes) returns that
 * singleton. DLDataTypeCode is an enum.IntEnum built at init. The translation to
 * and from numpy (to_augpy_dtype, to_numpy_dtype, swap_dtype, to_temp_dtype) and
 * the raw CAST_LIMITS entries (_cast_limits, used by augpy/numeric_limits.py)
 * live here too. semantics §1 and §2. */
#include <string.h>
#include "augpy.h"

/* ---- DLDataType --------------------------------------------------------------- */

static PyObject *dtype_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"code", "bits", "lanes", NULL};
    const char *func = "DLDataType";
    PyObject *code_obj, *bits_obj, *lanes_obj = NULL;
    int64_t code, bits, lanes = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:DLDataType", kwlist, &code_obj, &bits_obj, &lanes_obj) ||
        augpy_parse_int_range(code_obj, 0, 255, &code, func, "code") < 0 ||
        augpy_parse_int_range(bits_obj, 0, 255, &bits, func, "bits") < 0 ||
        (lanes_obj && augpy_parse_int_range(lanes_obj, 0, 65535, &lanes, func, "lanes") < 0))
        return NULL;
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    aug_dtype dt;
    if (aug_dtype_from_dlpack((uint8_t)code, (uint8_t)bits, (uint16_t)lanes, &dt) != AUG_OK) {
        PyErr_Format(PyExc_TypeError,
                     "DLDataType: unsupported data type (code=%d, bits=%d, lanes=%d); augpy supports "
                     "bool, int8-64, uint8-64, float16, bfloat16, float32 and float64 with lanes=1",
                     (int)code, (int)bits, (int)lanes);
        return NULL;
    }
    return augpy_dtype_object(st, dt);
}

static const aug_dtype_traits *traits_of(PyObject *self) {
    return aug_dtype_info(((AugDTypeObject *)self)->dtype);
}

static PyObject *dtype_get_code(PyObject *self, void *Py_UNUSED(closure)) {
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    return PyObject_CallFunction((PyObject *)st->DTypeCodeType, "i", (int)traits_of(self)->dl_code);
}

static PyObject *dtype_get_bits(PyObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(traits_of(self)->dl_bits);
}

static PyObject *dtype_get_lanes(PyObject *Py_UNUSED(self), void *Py_UNUSED(closure)) { return PyLong_FromLong(1); }

static PyObject *dtype_get_itemsize(PyObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(traits_of(self)->size);
}

static PyObject *dtype_get_name(PyObject *self, void *Py_UNUSED(closure)) {
    return PyUnicode_FromString(traits_of(self)->name);
}

static PyObject *dtype_repr(PyObject *self) {
    return PyUnicode_FromFormat("<DLDataType %s>", traits_of(self)->name);
}

/* str() is the name, as NumPy's dtypes print: error messages and print() read "float32". */
static PyObject *dtype_str(PyObject *self) { return dtype_get_name(self, NULL); }

static Py_hash_t dtype_hash(PyObject *self) {
    const aug_dtype_traits *tr = traits_of(self);
    /* Same hash as the (code, bits, lanes) key it stands for, never -1. */
    return (Py_hash_t)((tr->dl_code << 24) | (tr->dl_bits << 8) | 1);
}

static PyObject *dtype_richcompare(PyObject *a, PyObject *b, int op) {
    if ((op != Py_EQ && op != Py_NE) || Py_TYPE(a) != Py_TYPE(b)) Py_RETURN_NOTIMPLEMENTED;
    int eq = ((AugDTypeObject *)a)->dtype == ((AugDTypeObject *)b)->dtype;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *dtype_reduce(PyObject *self, PyObject *Py_UNUSED(unused)) {
    const aug_dtype_traits *tr = traits_of(self);
    return Py_BuildValue("O(iii)", (PyObject *)Py_TYPE(self), (int)tr->dl_code, (int)tr->dl_bits, 1);
}

static void dtype_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyGetSetDef dtype_getset[] = {
    {"code", dtype_get_code, NULL, "DLPack type code, see DLDataTypeCode.", NULL},
    {"bits", dtype_get_bits, NULL, "Number of bits.", NULL},
    {"lanes", dtype_get_lanes, NULL, "Number of elements for vector types; always 1.", NULL},
    {"itemsize", dtype_get_itemsize, NULL, "Number of bytes per element with this data type.", NULL},
    {"name", dtype_get_name, NULL, "Name of the data type, e.g. 'uint8'.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, "__reduce__($self, /)\n--\n\nPickle as DLDataType(code, bits, 1)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot dtype_slots[] = {
    {Py_tp_doc, "DLDataType(code, bits, lanes=1)\n--\n\n"
                "DLPack data type of tensors. One object exists per supported type (augpy.uint8, ...);\n"
                "the constructor returns it (TypeError for an unsupported combination). lanes must be 1.\n"
                "str() is the name ('uint8'), repr() <DLDataType uint8>.\n"
                "Equal objects are identical; hashable and picklable."},
    {Py_tp_new, dtype_new},
    {Py_tp_dealloc, dtype_dealloc},
    {Py_tp_repr, dtype_repr},
    {Py_tp_str, dtype_str},
    {Py_tp_hash, dtype_hash},
    {Py_tp_richcompare, dtype_richcompare},
    {Py_tp_getset, dtype_getset},
    {Py_tp_methods, dtype_methods},
    {0, NULL}};

static PyType_Spec dtype_spec = {
    .name = "augpy._augpy.DLDataType",
    .basicsize = sizeof(AugDTypeObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = dtype_slots,
};

PyObject *augpy_dtype_object(augpy_state *st, aug_dtype dtype) {
    if (!aug_dtype_is_valid(dtype) || st->dtypes[dtype] == NULL) {
        PyErr_Format(PyExc_ValueError, "augpy: invalid dtype value %d", (int)dtype);
        return NULL;
    }
    return Py_NewRef(st->dtypes[dtype]);
}

/* ---- translation to numpy ---------------------------------------------------- */

/* numpy (or ml_dtypes) scalar type for an aug dtype. New reference. */
PyObject *augpy_numpy_type(augpy_state *st, aug_dtype dt, const char *func) {
    if (dt == AUG_BFLOAT16) {
        PyObject *ml = PyImport_ImportModule("ml_dtypes");
        if (ml == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s: numpy has no bfloat16; install the ml_dtypes package to use bfloat16 with "
                         "numpy, or cast to float32 first",
                         func);
            return NULL;
        }
        PyObject *res = PyObject_GetAttrString(ml, "bfloat16");
        Py_DECREF(ml);
        return res;
    }
    PyObject *np = augpy_get_numpy(st);
    if (np == NULL) return NULL;
    return PyObject_GetAttrString(np, dt == AUG_BOOL ? "bool_" : aug_dtype_name(dt));
}

static int is_augpy_dtype(augpy_state *st, PyObject *obj) {
    return Py_TYPE(obj) == st->DTypeType;
}

static PyObject *to_augpy_dtype(PyObject *module, PyObject *arg) {
    augpy_state *st = augpy_state_from_module(module);
    aug_dtype dt;
    if (augpy_parse_dtype(st, arg, &dt, "to_augpy_dtype") < 0) return NULL;
    return augpy_dtype_object(st, dt);
}

static PyObject *to_numpy_dtype(PyObject *module, PyObject *arg) {
    augpy_state *st = augpy_state_from_module(module);
    aug_dtype dt;
    if (augpy_parse_dtype(st, arg, &dt, "to_numpy_dtype") < 0) return NULL;
    return augpy_numpy_type(st, dt, "to_numpy_dtype");
}

static PyObject *swap_dtype(PyObject *module, PyObject *arg) {
    augpy_state *st = augpy_state_from_module(module);
    aug_dtype dt;
    if (augpy_parse_dtype(st, arg, &dt, "swap_dtype") < 0) return NULL;
    if (is_augpy_dtype(st, arg)) return augpy_numpy_type(st, dt, "swap_dtype");
    return augpy_dtype_object(st, dt);
}

static PyObject *to_temp_dtype(PyObject *module, PyObject *arg) {
    augpy_state *st = augpy_state_from_module(module);
    aug_dtype dt;
    if (augpy_parse_dtype(st, arg, &dt, "to_temp_dtype") < 0) return NULL;
    aug_dtype temp = aug_dtype_info(dt)->temp;
    if (is_augpy_dtype(st, arg)) return augpy_dtype_object(st, temp);
    return augpy_numpy_type(st, temp, "to_temp_dtype");
}

/* The manual's keyword names: fn(numpy_dtype=...), fn(augpy_dtype=...), fn(dtype=...). */
static PyObject *one_arg(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                         const char *func, augpy_sig *sig, PyObject *(*fn)(PyObject *, PyObject *)) {
    PyObject *a[1];
    if (augpy_parse_args(func, args, nargs, kwnames, sig, a) < 0) return NULL;
    return fn(module, a[0]);
}
#define ONE_ARG(fn, name)                                                                          \
    AUGPY_SIG(fn##_sig, #fn, {name});                                                              \
    static PyObject *fn##_kw(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) { \
        return one_arg(m, args, nargs, kw, #fn, &fn##_sig, fn);                                    \
    }
ONE_ARG(to_augpy_dtype, "numpy_dtype")
ONE_ARG(to_numpy_dtype, "augpy_dtype")
ONE_ARG(swap_dtype, "dtype")
ONE_ARG(to_temp_dtype, "dtype")
#define KWFN(fn) (PyCFunction)(void (*)(void))fn##_kw, METH_FASTCALL | METH_KEYWORDS

/* _cast_limits(from, to) -> (vmin or None, vmax or None); semantics §2. */
static PyObject *cast_limits(PyObject *module, PyObject *args) {
    augpy_state *st = augpy_state_from_module(module);
    PyObject *from_obj, *to_obj;
    if (!PyArg_ParseTuple(args, "OO:_cast_limits", &from_obj, &to_obj)) return NULL;
    aug_dtype from, to;
    if (augpy_parse_dtype(st, from_obj, &from, "CAST_LIMITS") < 0) return NULL;
    if (augpy_parse_dtype(st, to_obj, &to, "CAST_LIMITS") < 0) return NULL;
    int has_min = 0, has_max = 0;
    aug_scalar vmin, vmax;
    aug_status status = aug_cast_limits(from, to, &has_min, &vmin, &has_max, &vmax);
    if (status != AUG_OK) return augpy_raise(st, status, "CAST_LIMITS");
    PyObject *lo = has_min ? augpy_scalar_to_py(&vmin) : Py_NewRef(Py_None);
    PyObject *hi = has_max ? augpy_scalar_to_py(&vmax) : Py_NewRef(Py_None);
    if (lo == NULL || hi == NULL) {
        Py_XDECREF(lo);
        Py_XDECREF(hi);
        return NULL;
    }
    PyObject *res = PyTuple_Pack(2, lo, hi);
    Py_DECREF(lo);
    Py_DECREF(hi);
    return res;
}

static PyMethodDef dtype_functions[] = {
    {"to_augpy_dtype", KWFN(to_augpy_dtype),
     "Translate a numpy dtype (or type, or name) to the augpy data type:\n"
     "``to_augpy_dtype(numpy.uint8) == augpy.uint8``."},
    {"to_numpy_dtype", KWFN(to_numpy_dtype),
     "Translate an augpy data type to the numpy scalar type:\n"
     "``to_numpy_dtype(augpy.uint8) == numpy.uint8``. bfloat16 needs the ml_dtypes package\n"
     "(TypeError otherwise)."},
    {"swap_dtype", KWFN(swap_dtype),
     "Translate augpy -> numpy and numpy -> augpy data types:\n"
     "``swap_dtype(augpy.uint8) == numpy.uint8``, ``swap_dtype(numpy.uint8) == augpy.uint8``."},
    {"to_temp_dtype", KWFN(to_temp_dtype),
     "The temp type augpy computes in for the given augpy or numpy dtype (float32 for types\n"
     "of up to 16 bits, float64 for 32- and 64-bit types and float64 itself); the result is\n"
     "of the same kind (augpy or numpy) as the argument."},
    {"_cast_limits", cast_limits, METH_VARARGS,
     "_cast_limits($module, src, dst, /)\n--\n\n"
     "(vmin, vmax): the lowest and highest values a saturating cast src -> dst can produce; None where every\n"
     "source value is representable. See augpy.numeric_limits.CAST_LIMITS."},
    {NULL, NULL, 0, NULL}};

/* ---- DLDataTypeCode ----------------------------------------------------------- */

static PyObject *make_code_enum(void) {
    PyObject *enum_mod = PyImport_ImportModule("enum");
    if (enum_mod == NULL) return NULL;
    PyObject *res = NULL, *args = NULL, *kwargs = NULL;
    PyObject *int_enum = PyObject_GetAttrString(enum_mod, "IntEnum");
    if (int_enum == NULL) goto done;
    args = Py_BuildValue("(s[(si)(si)(si)(si)(si)(si)(si)])", "DLDataTypeCode", "kDLInt", 0, "kDLUInt", 1,
                         "kDLFloat", 2, "kDLOpaqueHandle", 3, "kDLBfloat", 4, "kDLComplex", 5, "kDLBool", 6);
    kwargs = Py_BuildValue("{ssss}", "module", "augpy", "qualname", "DLDataTypeCode");
    if (args == NULL || kwargs == NULL) goto done;
    res = PyObject_Call(int_enum, args, kwargs);
    if (res != NULL) {
        PyObject *doc =
            PyUnicode_FromString("DLPack type code enum (kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool, ...).\n"
                                 "The `code` of a DLDataType (an IntEnum with DLPack's values).");
        if (doc == NULL || PyObject_SetAttrString(res, "__doc__", doc) < 0) Py_CLEAR(res);
        Py_XDECREF(doc);
    }
done:
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(int_enum);
    Py_DECREF(enum_mod);
    return res;
}

int augpy_init_dtypes(PyObject *module, augpy_state *st) {
    st->DTypeType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &dtype_spec, NULL);
    if (st->DTypeType == NULL) return -1;
    if (PyModule_AddObjectRef(module, "DLDataType", (PyObject *)st->DTypeType) < 0) return -1;

    PyObject *codes = make_code_enum();
    if (codes == NULL) return -1;
    st->DTypeCodeType = (PyTypeObject *)codes;
    if (PyModule_AddObjectRef(module, "DLDataTypeCode", codes) < 0) return -1;

    for (int i = 0; i < AUG_NUM_DTYPES; i++) {
        AugDTypeObject *obj = PyObject_New(AugDTypeObject, st->DTypeType);
        if (obj == NULL) return -1;
        obj->dtype = (aug_dtype)i;
        st->dtypes[i] = (PyObject *)obj;
        const char *name = i == AUG_BOOL ? "bool_" : aug_dtype_name((aug_dtype)i);
        if (PyModule_AddObjectRef(module, name, (PyObject *)obj) < 0) return -1;
    }
    static augpy_sig *const sigs[] = {&to_augpy_dtype_sig, &to_numpy_dtype_sig, &swap_dtype_sig, &to_temp_dtype_sig,
                                      NULL};
    if (augpy_sign_methods(dtype_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, dtype_functions);
}
