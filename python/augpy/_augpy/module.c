/* _augpy/module.c: the augpy._augpy extension module.
 *
 * Multi-phase initialisation (PEP 489) with per-module state (augpy_state): the
 * exec slot calls every file's augpy_init_* from one table (`families`), in
 * dependency order (errors and dtypes first, then the Tensor type, then the
 * functions that use them). Also the small
 * module-level helpers that belong to no other file (version, thread count). */
#include "augpy.h"

/* ---- state -------------------------------------------------------------------- */

augpy_state *augpy_state_from_module(PyObject *module) {
    return (augpy_state *)PyModule_GetState(module);
}

augpy_state *augpy_state_from_type(PyTypeObject *tp) {
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *module = PyType_GetModuleByDef(tp, &augpy_module_def);
    if (module == NULL) return NULL;
    return (augpy_state *)PyModule_GetState(module);
#else
    /* PyType_GetModuleByDef is 3.11+: walk the MRO for our heap types by hand. */
    PyObject *mro = tp->tp_mro;
    Py_ssize_t n = mro ? PyTuple_GET_SIZE(mro) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (!(base->tp_flags & Py_TPFLAGS_HEAPTYPE)) continue;
        PyObject *module = ((PyHeapTypeObject *)base)->ht_module;
        if (module != NULL && PyModule_GetDef(module) == &augpy_module_def)
            return (augpy_state *)PyModule_GetState(module);
    }
    PyErr_Format(PyExc_TypeError, "augpy: type '%s' does not belong to augpy._augpy", tp->tp_name);
    return NULL;
#endif
}

augpy_state *augpy_state_from_obj(PyObject *obj) { return augpy_state_from_type(Py_TYPE(obj)); }

PyObject *augpy_get_numpy(augpy_state *st) {
    if (st->numpy == NULL) {
        st->numpy = PyImport_ImportModule("numpy");
        if (st->numpy == NULL) return NULL;
    }
    return st->numpy;
}

/* ---- module functions ---------------------------------------------------------- */

static PyObject *get_num_threads(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(unused)) {
    return PyLong_FromLong(aug_get_num_threads());
}

/* A thread count argument of func as a C int (the C call states the real bound:
 * at most 256 threads); -1 with an exception set otherwise. */
static int thread_count(PyObject *arg, const char *func, int *n) {
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(arg, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s: expected an int, got %.100s", func, Py_TYPE(arg)->tp_name);
        return -1;
    }
    if (overflow || v > INT_MAX || v < INT_MIN) {
        PyObject *desc = PyLong_Check(arg) ? augpy_int_desc(arg) : PyObject_Repr(arg);
        if (desc)
            PyErr_Format(PyExc_ValueError, "%s: thread count %U is out of range of a C int (at most 256 threads are "
                         "supported; 0 or less: the default)", func, desc);
        Py_XDECREF(desc);
        return -1;
    }
    *n = (int)v;
    return 0;
}

static PyObject *set_num_threads(PyObject *module, PyObject *arg) {
    int n;
    if (thread_count(arg, "set_num_threads", &n) < 0) return NULL;
    aug_status status = aug_set_num_threads(n);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_module(module), status, "set_num_threads");
    Py_RETURN_NONE;
}

static PyObject *get_thread_num_threads(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(unused)) {
    return PyLong_FromLong(aug_get_thread_num_threads());
}

static PyObject *set_thread_num_threads(PyObject *module, PyObject *arg) {
    int n;
    if (thread_count(arg, "set_thread_num_threads", &n) < 0) return NULL;
    aug_status status = aug_set_thread_num_threads(n);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_module(module), status, "set_thread_num_threads");
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"get_num_threads", get_num_threads, METH_NOARGS,
     "get_num_threads($module, /)\n--\n\nNumber of worker threads of the CPU backend.\n"
     "set_num_threads changes it; the default is AUG_NUM_THREADS or the number of available cores."},
    {"set_num_threads", set_num_threads, METH_O,
     "set_num_threads($module, n, /)\n--\n\nSet the CPU backend's worker count; n <= 0 restores the default "
     "(AUG_NUM_THREADS or the number of available cores).\nResults never depend on it."},
    {"get_thread_num_threads", get_thread_num_threads, METH_NOARGS,
     "get_thread_num_threads($module, /)\n--\n\nThis thread's cap on the CPU workers of its own calls (0: none).\n"
     "set_thread_num_threads sets it."},
    {"set_thread_num_threads", set_thread_num_threads, METH_O,
     "set_thread_num_threads($module, n, /)\n--\n\nCap the CPU workers of this thread's calls at n (1: they run on "
     "this thread alone; n <= 0: no cap, the default of every thread).\nFor threads that already work in parallel "
     "with each other, an image each. Results never depend on it."},
    {NULL, NULL, 0, NULL}};

/* ---- lifecycle ----------------------------------------------------------------- */

/* Every file's registration, in the dependency order of AUGPY_FAMILIES (augpy.h). */
static int (*const families[])(PyObject *module, augpy_state *st) = {
#define AUGPY_INIT_FN(name) augpy_init_##name,
    AUGPY_FAMILIES(AUGPY_INIT_FN)
#undef AUGPY_INIT_FN
};

/* __all__: the public names (no leading underscore) that do not shadow a builtin
 * (all, any, min, max, sum, MemoryError), sorted: what `from augpy import *`
 * takes of the extension (augpy/__init__.py adds its own modules' names). */
static int add_all(PyObject *module) {
    PyObject *builtins = PyImport_ImportModule("builtins"), *names = PyList_New(0);
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    int rc = builtins && names ? 0 : -1;
    while (rc == 0 && PyDict_Next(PyModule_GetDict(module), &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyUnicode_GET_LENGTH(key) || PyUnicode_READ_CHAR(key, 0) == '_') continue;
        if (!PyObject_HasAttr(builtins, key) && PyList_Append(names, key) < 0) rc = -1;
    }
    if (rc == 0 && (PyList_Sort(names) < 0 || PyModule_AddObjectRef(module, "__all__", names) < 0)) rc = -1;
    Py_XDECREF(builtins);
    Py_XDECREF(names);
    return rc;
}

static int augpy_exec(PyObject *module) {
    augpy_state *st = augpy_state_from_module(module);
    if (PyModule_AddStringConstant(module, "__version__", aug_version()) < 0) return -1;
    if (PyModule_AddFunctions(module, module_methods) < 0) return -1;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        if (families[i](module, st) < 0) return -1;
    }
    return add_all(module);
}

static int augpy_traverse(PyObject *module, visitproc visit, void *arg) {
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return 0;
    Py_VISIT(st->TensorType);
    Py_VISIT(st->DTypeType);
    Py_VISIT(st->DTypeCodeType);
    Py_VISIT(st->ConstantType);
    Py_VISIT(st->DeviceType);
    Py_VISIT(st->StreamType);
    Py_VISIT(st->EventType);
    Py_VISIT(st->DevicePropType);
    Py_VISIT(st->RandomType);
    Py_VISIT(st->DecoderType);
    Py_VISIT(st->HostBufferType);
    Py_VISIT(st->WarpScaleModeType);
    for (int i = 0; i < AUG_NUM_DTYPES; i++) Py_VISIT(st->dtypes[i]);
    Py_VISIT(st->default_stream);
    Py_VISIT(st->CudaError);
    Py_VISIT(st->CuRandError);
    Py_VISIT(st->CuBlasError);
    Py_VISIT(st->MemoryError);
    Py_VISIT(st->NvJpegError);
    Py_VISIT(st->DecodeError);
    Py_VISIT(st->numpy);
    return 0;
}

static int augpy_clear(PyObject *module) {
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return 0;
    Py_CLEAR(st->TensorType);
    Py_CLEAR(st->DTypeType);
    Py_CLEAR(st->DTypeCodeType);
    Py_CLEAR(st->ConstantType);
    Py_CLEAR(st->DeviceType);
    Py_CLEAR(st->StreamType);
    Py_CLEAR(st->EventType);
    Py_CLEAR(st->DevicePropType);
    Py_CLEAR(st->RandomType);
    Py_CLEAR(st->HostBufferType);
    Py_CLEAR(st->DecoderType);
    Py_CLEAR(st->WarpScaleModeType);
    for (int i = 0; i < AUG_NUM_DTYPES; i++) Py_CLEAR(st->dtypes[i]);
    Py_CLEAR(st->default_stream);
    Py_CLEAR(st->CudaError);
    Py_CLEAR(st->CuRandError);
    Py_CLEAR(st->CuBlasError);
    Py_CLEAR(st->MemoryError);
    Py_CLEAR(st->NvJpegError);
    Py_CLEAR(st->DecodeError);
    Py_CLEAR(st->numpy);
    return 0;
}

static void augpy_free(void *module) { augpy_clear((PyObject *)module); }

static PyModuleDef_Slot augpy_slots[] = {
    {Py_mod_exec, (void *)augpy_exec},
    {0, NULL}};

PyModuleDef augpy_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "augpy._augpy",
    .m_doc = "augpy's C extension: saturating tensor math over the aug C library.",
    .m_size = sizeof(augpy_state),
    .m_methods = NULL,
    .m_slots = augpy_slots,
    .m_traverse = augpy_traverse,
    .m_clear = augpy_clear,
    .m_free = augpy_free,
};

PyMODINIT_FUNC PyInit__augpy(void) { return PyModuleDef_Init(&augpy_module_def); }
