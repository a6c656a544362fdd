/* _augpy/augpy.h: shared declarations of the augpy extension's C files (private).
 *
 * The extension is a thin layer: it parses Python arguments, converts them to the
 * aug C API's types, calls the C API and maps aug_status to Python exceptions.
 * Multi-phase init with module state; every type is a heap type created with
 * PyType_FromModuleAndSpec, so methods find the state with augpy_state_from_type. */
#ifndef AUGPY_H
#define AUGPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <aug/aug.h>

/* The Tensor object (augpy.CudaTensor == augpy.Tensor). */
typedef struct {
    PyObject_HEAD
    aug_tensor *t;          /* owned; never NULL after construction */
    PyObject *weakreflist;
    Py_ssize_t exports;     /* live buffer-protocol exports */
} AugTensorObject;

/* A DLDataType object: immutable, one singleton per aug dtype. */
typedef struct {
    PyObject_HEAD
    aug_dtype dtype;
} AugDTypeObject;

/* augpy.Constant(value, dtype): a typed (non-weak) scalar. */
typedef struct {
    PyObject_HEAD
    aug_scalar scalar;
    PyObject *value;        /* the Python value as given */
} AugConstantObject;

typedef struct {
    PyTypeObject *TensorType;
    PyTypeObject *DTypeType;        /* DLDataType */
    PyTypeObject *DTypeCodeType;    /* DLDataTypeCode */
    PyTypeObject *ConstantType;
    PyTypeObject *DeviceType;       /* CudaDevice */
    PyTypeObject *StreamType;       /* CudaStream */
    PyTypeObject *EventType;        /* CudaEvent */
    PyTypeObject *DevicePropType;   /* CudaDeviceProp */
    PyObject *dtypes[AUG_NUM_DTYPES]; /* DLDataType singletons, indexed by aug_dtype */
    PyObject *CudaError, *CuRandError, *CuBlasError, *MemoryError, *NvJpegError;
    PyObject *numpy;                /* the numpy module, imported lazily (NULL until then) */
} augpy_state;

/* ---- state ------------------------------------------------------------------ */
augpy_state *augpy_state_from_module(PyObject *module);
augpy_state *augpy_state_from_type(PyTypeObject *tp);   /* via PyType_GetModuleByDef */
augpy_state *augpy_state_from_obj(PyObject *obj);       /* Py_TYPE(obj) */
extern PyModuleDef augpy_module_def;

/* ---- errors (errors.c) ------------------------------------------------------ */
/* Raise the Python exception for st with aug_last_error()'s message; returns NULL.
 * VALUE->ValueError, TYPE->TypeError, INDEX->IndexError, MEMORY->augpy.MemoryError,
 * OVERFLOW->OverflowError, CUDA->CudaError, CURAND->CuRandError, CUBLAS->CuBlasError,
 * JPEG->NvJpegError, RUNTIME->RuntimeError. */
PyObject *augpy_raise(augpy_state *st, aug_status status);
int augpy_init_errors(PyObject *module, augpy_state *st);

/* ---- tensors (tensor.c) ----------------------------------------------------- */
/* New Tensor object owning t (steals t; frees it on failure). NULL on error. */
PyObject *augpy_wrap(augpy_state *st, aug_tensor *t);
int augpy_is_tensor(augpy_state *st, PyObject *obj);
/* Borrowed aug_tensor of a Tensor object, or NULL with TypeError naming func/argname. */
aug_tensor *augpy_tensor_arg(augpy_state *st, PyObject *obj, const char *func, const char *argname);

/* ---- conversions (convert.c) ------------------------------------------------ */
/* dtype from an augpy DLDataType, a numpy dtype/type object or a name string. */
int augpy_parse_dtype(augpy_state *st, PyObject *obj, aug_dtype *out, const char *func);
PyObject *augpy_dtype_object(augpy_state *st, aug_dtype dtype); /* new ref to the singleton */
/* Python bool/int/float (incl. numpy scalars) or augpy.Constant -> aug_scalar.
 * Returns 1 on success, 0 if obj is not a scalar (no exception set), -1 on error
 * (e.g. OverflowError for ints outside [-2^63, 2^64-1]). */
int augpy_parse_scalar(augpy_state *st, PyObject *obj, aug_scalar *out);
/* aug_scalar -> Python bool/int/float. */
PyObject *augpy_scalar_to_py(const aug_scalar *s);
/* A shape from a sequence of ints (or a single int). Returns ndim or -1. */
int augpy_parse_shape(PyObject *obj, int64_t *shape, const char *func);
/* Any object exporting the buffer protocol / __array_interface__ (numpy arrays)
 * -> NEW CPU tensor with a copy of its data (any strides). */
aug_tensor *augpy_tensor_from_buffer(augpy_state *st, PyObject *obj, const char *func);
/* Operand parsing for ops: Tensor, scalar, or array-like (copied into a tensor,
 * stored in *tmp which the caller frees with aug_tensor_free). 0 ok, -1 error,
 * 1 = not a supported operand (caller returns NotImplemented for dunders). */
int augpy_parse_operand(augpy_state *st, PyObject *obj, aug_operand *op, aug_tensor **tmp, const char *func);
/* `out=` keyword: None -> *out = NULL; else must be a Tensor (borrowed). */
int augpy_parse_out(augpy_state *st, PyObject *obj, aug_tensor **out, const char *func);

/* ---- registration of each file's functions and types ------------------------ */
int augpy_init_dtypes(PyObject *module, augpy_state *st);   /* dtype.c */
int augpy_init_tensor(PyObject *module, augpy_state *st);   /* tensor.c */
int augpy_init_dlpack(PyObject *module, augpy_state *st);   /* dlpack.c */
int augpy_init_device(PyObject *module, augpy_state *st);   /* device.c */
int augpy_init_ops(PyObject *module, augpy_state *st);      /* ops.c: functional API, fma, gemm, ... */
int augpy_init_math(PyObject *module, augpy_state *st);     /* mathfuncs.c: DALI math names */
int augpy_init_reduce(PyObject *module, augpy_state *st);   /* reduce.c */

/* Number protocol and tensor methods implemented in ops.c / reduce.c and installed
 * on the Tensor type by tensor.c. */
PyObject *augpy_tensor_richcompare(PyObject *a, PyObject *b, int op);     /* ops.c */
extern PyType_Slot augpy_tensor_number_slots[];                           /* ops.c, {0, NULL}-terminated */
extern PyMethodDef augpy_tensor_op_methods[];                             /* ops.c + reduce.c methods: sum, fill, ..., sentinel-terminated */

/* Release the GIL around a C call on tensors larger than this many elements. */
#define AUGPY_GIL_THRESHOLD 65536

#endif
