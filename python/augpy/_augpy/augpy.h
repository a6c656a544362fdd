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

/* ---- compatibility with Python 3.9 ----------------------------------------- */
#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *augpy_newref_(PyObject *obj) {
    Py_INCREF(obj);
    return obj;
}
#define Py_NewRef(obj) augpy_newref_((PyObject *)(obj))
static inline int PyModule_AddObjectRef(PyObject *module, const char *name, PyObject *value) {
    Py_XINCREF(value);
    if (PyModule_AddObject(module, name, value) < 0) {
        Py_XDECREF(value);
        return -1;
    }
    return 0;
}
#endif
#ifndef Py_TPFLAGS_IMMUTABLETYPE
#define Py_TPFLAGS_IMMUTABLETYPE 0
#endif

/* The Tensor object (augpy.Tensor == augpy.Tensor). */
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
    PyTypeObject *RandomType;       /* RandomNumberGenerator (random.c) */
    PyTypeObject *DecoderType;      /* Decoder (jpeg.c) */
    PyTypeObject *WarpScaleModeType;/* WarpScaleMode (warp.c) */
    PyTypeObject *HostBufferType;   /* page-locked memory behind numpy(blocking=False) (tensor_io.c) */
    PyObject *dtypes[AUG_NUM_DTYPES]; /* DLDataType singletons, indexed by aug_dtype */
    PyObject *default_stream;       /* augpy.default_stream (device.c) */
    PyObject *CudaError, *CuRandError, *CuBlasError, *MemoryError, *NvJpegError, *DecodeError;
    PyObject *numpy;                /* the numpy module, imported lazily (NULL until then) */
} augpy_state;

/* ---- state ------------------------------------------------------------------ */
augpy_state *augpy_state_from_module(PyObject *module);
augpy_state *augpy_state_from_type(PyTypeObject *tp);   /* via PyType_GetModuleByDef */
augpy_state *augpy_state_from_obj(PyObject *obj);       /* Py_TYPE(obj) */
extern PyModuleDef augpy_module_def;

/* ---- errors (errors.c) ------------------------------------------------------ */
/* Raise the Python exception for status with the message "func: detail", the
 * detail being aug_last_error_detail() (the C message without its function
 * name); func NULL keeps the C function's name. status AUG_OK (a C call that
 * returned NULL) takes aug_last_status(). Returns NULL.
 * VALUE->ValueError, TYPE->TypeError, INDEX->IndexError, MEMORY->augpy.MemoryError,
 * OVERFLOW->OverflowError, CUDA->CudaError, CURAND->CuRandError, CUBLAS->CuBlasError,
 * JPEG->DecodeError (a subclass of NvJpegError; every decode error, whatever the
 * decoder's engine), RUNTIME->RuntimeError. */
PyObject *augpy_raise(augpy_state *st, aug_status status, const char *func);
int augpy_init_errors(PyObject *module, augpy_state *st);

/* The numpy module (imported on first use, cached in the state). Borrowed; NULL
 * with ImportError set when numpy is not installed. (module.c) */
PyObject *augpy_get_numpy(augpy_state *st);

/* ---- tensors (tensor.c) ----------------------------------------------------- */
/* New Tensor object owning t (steals t; frees it on failure). NULL on error. */
PyObject *augpy_wrap(augpy_state *st, aug_tensor *t);
int augpy_is_tensor(augpy_state *st, PyObject *obj);
/* Borrowed aug_tensor of a Tensor object, or NULL with TypeError naming func/argname. */
aug_tensor *augpy_tensor_arg(augpy_state *st, PyObject *obj, const char *func, const char *argname);
/* "cpu" / "cuda:N" as a new str. */
PyObject *augpy_device_str(aug_device dev);
PyObject *augpy_int64_tuple(int n, const int64_t *v);
/* A new numpy array with a copy of t's values (array == NULL), or t's values
 * copied into the writable buffer `array` (same shape: saturate_cast; a raw
 * byte buffer or same-dtype buffer of enough size: reinterpreted with t's
 * shape and dtype). Returns the numpy array. */
PyObject *augpy_tensor_to_numpy(augpy_state *st, const aug_tensor *t, PyObject *array, const char *func);

/* ---- argument specs (argspec.c) -------------------------------------------- */
/* One parameter: its name, then '|'-separated keyword aliases ("input|tensor";
 * the signature and the messages show the first), and its default as Python
 * text ("None", "'linear'"), NULL when required. */
typedef struct augpy_param {
    const char *name;
    const char *dflt;
} augpy_param;

/* A function's (or method's) parameters, declared once at file scope with
 * AUGPY_SIG and read by the parser and the docstring builder. */
typedef struct augpy_sig {
    const char *name;           /* the Python name: its PyMethodDef's ml_name, or the type's name */
    const augpy_param *params;
    int nparams;
    int npos;                   /* the first npos may be given by position; the others are keyword-only */
    int method;                 /* 1: a method, signed "name($self, /, ...)" */
    int nrequired;              /* the parameters without a default (a prefix): counted once, -1 until then */
} augpy_sig;

#define AUGPY_NPARAMS_(p) ((int)(sizeof(p) / sizeof((p)[0])))
/* static augpy_sig var: the function `pyname` with the parameters given as
 * {"name|alias", "default"} items ({"name"}: required, dflt NULL; the pragmas
 * let -Wextra accept that short form). AUGPY_METHOD_SIG: a
 * method (self not listed); AUGPY_SIG_KWONLY: only the first npos positional;
 * AUGPY_METHOD_SIG_OF: the method of the function spec `base` without its first
 * parameter (the tensor: Tensor.sum of augpy.sum). */
#define AUGPY_SIG_(var, pyname, method, npos, ...)                                                            \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")         \
    static const augpy_param var##_params_[] = {__VA_ARGS__};                                                \
    _Pragma("GCC diagnostic pop")                                                                            \
    static augpy_sig var = {pyname, var##_params_, AUGPY_NPARAMS_(var##_params_),                            \
                            (npos) < 0 ? AUGPY_NPARAMS_(var##_params_) : (npos), method, -1}
#define AUGPY_SIG(var, pyname, ...) AUGPY_SIG_(var, pyname, 0, -1, __VA_ARGS__)
#define AUGPY_SIG_KWONLY(var, pyname, npos, ...) AUGPY_SIG_(var, pyname, 0, npos, __VA_ARGS__)
#define AUGPY_METHOD_SIG(var, pyname, ...) AUGPY_SIG_(var, pyname, 1, -1, __VA_ARGS__)
#define AUGPY_METHOD_SIG_OF(var, pyname, base)                                                               \
    static augpy_sig var = {pyname, base##_params_ + 1, AUGPY_NPARAMS_(base##_params_) - 1,                  \
                            AUGPY_NPARAMS_(base##_params_) - 1, 1, -1}

/* Parse METH_FASTCALL|METH_KEYWORDS arguments into slots[0..sig->nparams)
 * (borrowed; NULL where absent) by the names of sig (aliases included); the
 * required ones must be present. 0 ok, -1 with TypeError naming func. */
int augpy_parse_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, augpy_sig *sig,
                     PyObject **slots);
/* At module init: give each function of sigs (NULL-terminated) the docstring
 * "name(params)\n--\n\n" + its doc in defs (the def of that name), and a type's
 * Py_tp_doc slot its constructor's; an earlier module instance's work is kept.
 * 0, or -1 with SystemError (a spec without its def, a hand-written signature). */
int augpy_sign_methods(PyMethodDef *defs, augpy_sig *const *sigs);
int augpy_sign_type(PyType_Slot *slots, augpy_sig *sig);

/* ---- argument parsing (args.c) ---------------------------------------------- */
/* Number arguments: ints (bool and float refused, TypeError; beyond int64 or
 * int, ValueError "func: name = ... is out of range") and reals (anything with
 * __float__/__index__; TypeError otherwise, ValueError "must be finite" for
 * ints beyond the double range). 0 or -1. */
int augpy_parse_int64(PyObject *obj, int64_t *out, const char *func, const char *name);
/* The checked parser behind every integer argument: an int (or __index__, bool
 * refused: TypeError "func: name must be an int") in [lo, hi], else ValueError
 * "func: name = V is out of range [lo, hi]". 0 or -1. */
int augpy_parse_int_range(PyObject *obj, int64_t lo, int64_t hi, int64_t *out, const char *func, const char *name);
int augpy_parse_int(PyObject *obj, int *out, const char *func, const char *name);
int augpy_parse_double(PyObject *obj, double *out, const char *func, const char *name);
/* A scalar operand (Python or numpy number, augpy.Constant) as a double (fma's
 * scalar, gemm's alpha and beta); TypeError "func: name must be a number". */
int augpy_parse_number(augpy_state *st, PyObject *obj, double *out, const char *func, const char *name);
/* A shape from a sequence of ints (or a single int). Returns ndim or -1. */
int augpy_parse_shape(PyObject *obj, int64_t *shape, const char *func);
/* `out=` keyword: None -> *out = NULL; else must be a Tensor (borrowed). */
int augpy_parse_out(augpy_state *st, PyObject *obj, aug_tensor **out, const char *func);
/* The conventions of image ops (aug/conventions.h; docs/semantics.md "Conventions
 * of image ops"). interpolation=: absent / None -> AUG_INTERP_LINEAR, else a str
 * read by aug_interp_from_name (TypeError for other types; ValueError with the C
 * message). A layout keyword `name`: absent / None -> *out = NULL (the tensor's
 * layout or the op's default), else a str (TypeError "func: name must be a str or
 * None") that, when supported ("NCHW,CHW", ...) is given, aug_layout_check accepts
 * (ValueError "func: name 'X' is not supported (NCHW, CHW)"). 0 or -1. */
int augpy_parse_interp(augpy_state *st, PyObject *obj, aug_interp *out, const char *func);
/* A tensor's layout string from a str: its characters, or NULL with ValueError
 * "func: layout ... must be ASCII characters, one per dimension" (the C string
 * must have one byte per character); value must be a str. */
const char *augpy_layout_chars(PyObject *value, const char *func);
int augpy_parse_layout(augpy_state *st, PyObject *obj, const char *supported, const char **out, const char *func,
                       const char *name);
/* An image argument of the image functions (resize, flip, warp_affine, the blurs,
 * lighting, the colour ops, crop_mirror_normalize, ...): an augpy Tensor as it is,
 * else a foreign array imported without a copy: __dlpack__ first (numpy, torch,
 * cupy, ...), then the buffer protocol / __array_interface__ (the DLPack import's
 * errors fall back to it). A read-only foreign array is copied (DLPack's read-only
 * flag) unless `writable` (out= / dst arguments, written in place): then it is a
 * ValueError. im->obj is a new reference to a Tensor object (the argument itself,
 * or a Tensor over the foreign memory, which keeps that alive), im->t its tensor;
 * release with augpy_image_release (safe on a zeroed or released im). TypeError
 * "func: name must be a Tensor or an array ..." for anything else (str, bytes,
 * None, lists). 0 or -1. */
typedef struct {
    PyObject *obj; /* new reference, NULL when unset */
    aug_tensor *t; /* obj's tensor (borrowed), NULL when unset */
    int foreign;   /* imported from a non-augpy object */
    int torch;     /* ... whose type's module is torch (found without importing torch) */
} augpy_image;
int augpy_image_arg(augpy_state *st, PyObject *obj, int writable, augpy_image *im, const char *func, const char *name);
/* `out=`: None / NULL leaves im unset (zeroed); else augpy_image_arg(writable, "out"). */
int augpy_image_out(augpy_state *st, PyObject *obj, augpy_image *im, const char *func);
void augpy_image_release(augpy_image *im);
/* Image layouts (bits of a `kinds` mask) and the rule for a tensor without a layout
 * string (docs/semantics.md, layouts): 3-D with channels (at most 4) on exactly one
 * end and more than 4 on the other is "HWC" or "CHW"; 4-D likewise "NHWC" / "NCHW"
 * by its last three dimensions; a torch tensor is channels first ("CHW" / "NCHW")
 * whenever its first (image) dimension is at most 4. augpy_infer_layout: the bit,
 * or 0 (ambiguous, or not 3-D / 4-D). */
enum { AUGPY_HWC = 1, AUGPY_CHW = 2, AUGPY_NHWC = 4, AUGPY_NCHW = 8 };
#define AUGPY_ANY_LAYOUT (AUGPY_HWC | AUGPY_CHW | AUGPY_NHWC | AUGPY_NCHW)
int augpy_infer_layout(const aug_tensor *t, int torch);
/* The layout an op that takes the layouts `kinds` reads im with when the caller
 * gave none: *layout = "HWC" / "CHW" / "NHWC" / "NCHW" when im has no layout string
 * and its shape (or its being one of kinds' two readings for its ndim) says;
 * NULL when the tensor's own layout string, or for an augpy tensor without one
 * and an ambiguous shape the op's documented default, applies. ValueError naming
 * func: a layout (its string, or inferred) that is not one of kinds ("func: name
 * has layout 'NHWC' but func takes 'NCHW'"), and for a foreign array an ambiguous
 * shape that kinds reads two ways ("... pass <param>= ('HWC' or 'CHW')"; param
 * NULL: "layout"). 0 or -1. */
int augpy_image_layout(const augpy_image *im, int kinds, const char **layout, const char *func, const char *name,
                       const char *param);
/* The input and out= of an op that reads its input with one of the layouts kinds
 * (no layout argument: the blurs, lighting, the colour ops): augpy_image_arg /
 * augpy_image_out, out_obj (NULL / None: none) being obj itself imported once and
 * written in place; then augpy_image_layout checks the input's layout (its string
 * or its shape's) is one of kinds. 0 or -1 (both released). */
int augpy_image_io(augpy_state *st, PyObject *obj, PyObject *out_obj, int kinds, augpy_image *im, augpy_image *out,
                   const char *func, const char *name);
/* The common tail of an op read through augpy_image_io: the error for status s, else
 * out_obj (when out= was given) or the new tensor res; im and out released. */
PyObject *augpy_image_result(augpy_state *st, aug_status s, aug_tensor *res, augpy_image *im, augpy_image *out,
                             PyObject *out_obj, const char *func);
/* The items of a tuple as images (augpy_image_arg, read-only; names "name[i]"): a
 * new PyMem array of PyTuple_GET_SIZE(tuple) images (at least one slot), or NULL
 * with the error set. Release with augpy_image_seq_release(ims, n) (NULL is fine). */
augpy_image *augpy_image_seq(augpy_state *st, PyObject *tuple, const char *func, const char *name);
void augpy_image_seq_release(augpy_image *ims, Py_ssize_t n);
/* augpy_image_layout for a list of images read with one layout: the layout the
 * items' layout strings and inferred layouts agree on ("HWC", ... or NULL when
 * none says), ValueError naming the first two items that disagree. 0 or -1. */
int augpy_images_layout(const augpy_image *ims, Py_ssize_t n, int kinds, const char **layout, const char *func,
                        const char *name, const char *param);
/* augpy.from_dlpack(obj) for the image arguments (dlpack.c): a new Tensor object
 * over obj's memory; writable: a read-only export is a ValueError (else a copy). */
PyObject *augpy_import_dlpack(augpy_state *st, PyObject *obj, int writable, const char *func);
/* A parameter tensor: an augpy tensor (borrowed) or an array-like converted to a
 * new float32 tensor on dev (the image's device) stored in *tmp (caller frees).
 * NULL with TypeError. */
aug_tensor *augpy_float32_arg(augpy_state *st, PyObject *obj, aug_device dev, const char *func, const char *name,
                              aug_tensor **tmp);
/* The "a number or one per image" parameter form of every image op: a number (for
 * every value), or n * per numbers (per per image: 1, or C for per-channel values)
 * as a flat sequence or as n rows (lists, tuples, NumPy arrays), into vals[n * per].
 * TypeError "<func>: <name> must be a number or <n> numbers (one per image), not
 * '<type>'"; ValueError "<name> has <k> values for <n> images". 0 or -1. */
int augpy_parse_per_image(PyObject *obj, int64_t n, int64_t per, double *vals, const char *func, const char *name);
/* augpy_parse_per_image into a new PyMem_Malloc'ed array (caller PyMem_Frees); NULL on error. */
double *augpy_per_image_alloc(PyObject *obj, int64_t n, int64_t per, const char *func, const char *name);
/* The tensor form: an augpy tensor as it is (borrowed; the C function checks its
 * dtype and shape), anything else parsed by augpy_parse_per_image into a new
 * float32 tensor (n * per,) on dev stored in *tmp (caller frees). NULL on error. */
aug_tensor *augpy_per_image_tensor(augpy_state *st, PyObject *obj, int64_t n, int64_t per, aug_device dev,
                                   const char *func, const char *name, aug_tensor **tmp);
/* A device: 'cpu', 'cuda' (cuda:0), 'cuda:N', or an int (a device_id of the
 * default backend). TypeError / ValueError naming func. 0 or -1. */
int augpy_parse_device(PyObject *obj, aug_device *out, const char *func);
/* The device a `device_id` names: an index into the default backend's devices
 * (semantics §4). ValueError "func: invalid device_id N (the cpu backend has device 0
 * only)" for ids that do not exist. 0 or -1. */
int augpy_device_from_id(int device_id, aug_device *out, const char *func);
/* A device_id argument: an int (bool refused), or with allow_none None / NULL
 * for the default device. TypeError "func: device_id must be an int[ or None],
 * got T", ValueError as augpy_device_from_id. 0 or -1. */
int augpy_parse_device_id(PyObject *obj, int allow_none, aug_device *out, const char *func);
/* Launch settings of one call (aug_set_launch): blocks_per_sm / threads as
 * given (NULL: not given, the signature's default: AUGPY_BLOCKS_PER_SM and
 * default_threads, 512 for the functional API, else 0 = automatic); ints in
 * [0, 2^31). The CUDA backend honours them, the CPU backend ignores them.
 * augpy_launch_begin makes them the thread's settings right before the C call,
 * augpy_launch_end restores the previous ones right after it, whatever it
 * returned (AUGPY_CALL_LAUNCH does both). */
#define AUGPY_BLOCKS_PER_SM 8
#define AUGPY_THREADS_FUNCTIONAL 512
typedef struct {
    int blocks_per_sm, threads;
    int saved_blocks_per_sm, saved_threads;
} augpy_launch;
int augpy_parse_launch(const char *func, PyObject *blocks_per_sm, PyObject *threads, int default_threads,
                       augpy_launch *launch);
void augpy_launch_begin(augpy_launch *launch);
void augpy_launch_end(const augpy_launch *launch);

/* ---- conversions (convert.c) ------------------------------------------------ */
/* dtype from an augpy DLDataType, a numpy dtype/type object or a name string. */
int augpy_parse_dtype(augpy_state *st, PyObject *obj, aug_dtype *out, const char *func);
PyObject *augpy_dtype_object(augpy_state *st, aug_dtype dtype); /* new ref to the singleton */
/* The numpy scalar type of dtype (ml_dtypes.bfloat16 for bfloat16; TypeError
 * naming func when ml_dtypes is missing). New reference. (dtype.c) */
PyObject *augpy_numpy_type(augpy_state *st, aug_dtype dtype, const char *func);
/* Python bool/int/float (incl. numpy scalars) or augpy.Constant -> aug_scalar.
 * Returns 1 on success, 0 if obj is not a scalar (no exception set), -1 on error
 * (e.g. OverflowError for ints outside [-2^63, 2^64-1]). */
int augpy_parse_scalar(augpy_state *st, PyObject *obj, aug_scalar *out);
/* aug_scalar -> Python bool/int/float. */
PyObject *augpy_scalar_to_py(const aug_scalar *s);
/* Any object exporting the buffer protocol / __array_interface__ (numpy arrays)
 * -> NEW tensor on dev with a copy of its data (any strides). */
aug_tensor *augpy_tensor_from_buffer(augpy_state *st, PyObject *obj, aug_device dev, const char *func);
/* Operand parsing for ops: Tensor, scalar, or array-like (copied into a tensor,
 * stored in *tmp which the caller frees with aug_tensor_free). 0 ok, -1 error,
 * 1 = not a supported operand (caller returns NotImplemented for dunders). */
int augpy_parse_operand(augpy_state *st, PyObject *obj, aug_operand *op, aug_tensor **tmp, const char *func);
/* repr(obj) of an int of at most 256 bits, else "(an int of N bits)" (with a leading
 * "-" when negative): huge ints are slow to print, and refused past
 * sys.get_int_max_str_digits(). New reference. */
PyObject *augpy_int_desc(PyObject *obj);
/* A Python int outside [-2^63, 2^64 - 1] (bool excluded; no exception set). */
int augpy_is_big_int(PyObject *obj);
/* Such an int as a weak scalar that takes dtype `target` (semantics §6): a float
 * target gives the nearest double as a weak float, as NumPy (OverflowError past the
 * double range); an integer or bool target, or none (AUG_DTYPE_AUTO), cannot hold it:
 * OverflowError "func: integer scalar N is out of range for <dtype>". 0 or -1. */
int augpy_big_int_scalar(PyObject *obj, aug_dtype target, aug_scalar *out, const char *func);
/* augpy_parse_operand for the n operands of one op (tmp[] set to NULL first; the
 * caller frees them whatever the result): the big ints among them take the dtype of
 * the other, typed operands (augpy_big_int_scalar). 0, -1, or 1 for an object that
 * is not an operand; *bad is then the index of the failing one. */
int augpy_parse_operands(augpy_state *st, PyObject *const *objs, int n, aug_operand *in, aug_tensor **tmp, int *bad,
                         const char *func);
/* Host data given as an operand goes to the device of the op: the temporaries
 * of augpy_parse_operand (tmp[i] != NULL) are copied to the device of `hint`
 * (the out= tensor) or else of the first tensor operand, when that is a CUDA
 * device; in[i] follows. Tensors themselves never move (mixing devices stays
 * the core's error). 0 or -1 with the exception set. */
int augpy_operands_to_device(augpy_state *st, aug_operand *in, aug_tensor **tmp, int n, const aug_tensor *hint,
                             const char *func);
/* A CPU tensor viewing the memory of a buffer-protocol object without copying
 * (any strides; objects without the buffer protocol go through numpy.asarray).
 * `t` is valid until augpy_bufview_release, which releases the buffer. */
typedef struct {
    Py_buffer buf;
    PyObject *owner;    /* the object whose buffer is held (new ref) */
    aug_tensor *t;      /* owned view of buf's memory */
} augpy_bufview;
int augpy_bufview_get(augpy_state *st, PyObject *obj, int writable, augpy_bufview *view, const char *func);
void augpy_bufview_release(augpy_bufview *view);
/* Copy of src into dst (broadcast, saturate_cast) with the GIL released for
 * large tensors; errors name func. 0 or -1. */
int augpy_copy_into(augpy_state *st, const aug_tensor *src, aug_tensor *dst, const char *func);
/* A warp's background argument (warp.c): None -> *bg = NULL; a Tensor (borrowed); a
 * number (all C channels) or an array-like of C values (a new float64 tensor on the CPU
 * in *tmp, which the caller frees: the warps read a host background without waiting for
 * the device, whatever the images' device). 0 or -1. */
int augpy_parse_background(augpy_state *st, PyObject *obj, int64_t C, const aug_tensor **bg, aug_tensor **tmp,
                           const char *func);

/* ---- locks that survive fork() (fork.c) -------------------------------------- */
/* A new lock (PyThread_allocate_lock; NULL when out of memory) and its fork
 * generation. Call augpy_forksafe_lock_check with the GIL held before every
 * acquire: after a fork it replaces a lock another thread of the parent held at
 * fork time. Returns 0 (lock unchanged or free at fork time), 1 (replaced: the
 * object's state may be mid-call; reset it) or -1 with MemoryError. */
#include <pythread.h>
PyThread_type_lock augpy_forksafe_lock_new(unsigned long *generation);
unsigned long augpy_fork_generation(void); /* forks this process has been through as a child */
int augpy_forksafe_lock_check(PyThread_type_lock *lock, unsigned long *generation);

/* ---- registration of each file's functions and types (called by module.c) --- */
/* Every file's registration augpy_init_<name>(module, state), one row each, in
 * dependency order: the exception classes and dtypes first (everything raises or
 * names dtypes), then the Tensor type, then the families that take tensors. Each
 * file's augpy_init_<name> registers only its own functions and types; module.c
 * calls them in this order. A new file is a row here (no other list). */
#define AUGPY_FAMILIES(X)                                                                          \
    X(errors)         /* errors.c: CudaError ... NvJpegError */                                    \
    X(dtypes)         /* dtype.c: DLDataType, DLDataTypeCode, the dtype objects */                 \
    X(tensor)         /* tensor.c: Tensor */                                                       \
    X(tensor_methods) /* tensor_methods.c: _rebuild_tensor (pickle) */                             \
    X(tensor_io)      /* tensor_io.c: array_to_tensor, tensor_to_array, empty_like */              \
    X(dlpack)         /* dlpack.c: export_dltensor, import_dltensor, from_dlpack */                \
    X(device)         /* device.c: CudaDevice, CudaStream, CudaEvent, ... */                       \
    X(create)         /* create.c: Constant, zeros, ones, full, *_like */                          \
    X(ops)            /* ops.c: add ... ne, fma, gemm, fill, copy, cast */                         \
    X(math)           /* mathfuncs.c: _math_<name> (augpy.math) */                                 \
    X(reduce)         /* reduce.c: sum, min, max, mean, all, any, argmin, argmax */                \
    X(random)         /* random.c: RandomNumberGenerator, stream_seed, sample_id */                \
    X(reshape)        /* reshape.c: reshape (DALI) */                                              \
    X(jpeg)           /* jpeg.c: Decoder, jpeg_info */                                             \
    X(jpeg_encode)    /* jpeg_encode.c: encode_jpeg */                                             \
    X(warp)           /* warp.c: WarpScaleMode, make_affine_matrix, make_transform, warp_affine */ \
    X(lighting)       /* lighting.c: lighting */                                                   \
    X(blur)           /* blur.c: box_blur_single, gaussian_blur_single, gaussian_blur */           \
    X(create_more)    /* create_more.c: empty, arange, asarray, tensor, stack, concatenate, where */ \
    X(targets)        /* targets.c: _boxes_affine, _boxes_affine_batch, _keypoints_affine */       \
    X(resize)         /* resize.c: resize, resize_batch, flip, hflip, vflip, crop, center_crop */  \
    X(colour)         /* colour.c: adjust_*, rgb_to_grayscale, rgb_to_hsv, hsv_to_rgb, color_jitter */ \
    X(normalize)      /* normalize.c: crop_mirror_normalize */                                     \
    X(rrc)            /* rrc.c: _random_resized_crop, _plan_decode (augpy.rrc) */                  \
    X(tone)           /* tone.c: invert, posterize, solarize, equalize, autocontrast, adjust_sharpness */ \
    X(policy)         /* policy.c: _image_ops_batch (the policies' per-image op lists) */ \
    X(mix)            /* mix.c: mix_mirror */
#define AUGPY_INIT_DECL(name) int augpy_init_##name(PyObject *module, augpy_state *st);
AUGPY_FAMILIES(AUGPY_INIT_DECL)
#undef AUGPY_INIT_DECL
/* NumPy's nonzero of a Tensor object: a tuple of int64 index tensors on its device
 * (computed on the host). (create_more.c) */
PyObject *augpy_nonzero(augpy_state *st, PyObject *tensor, const char *func);
/* Advanced (integer-array / boolean-mask) indexing (index.c): 1 if key holds an
 * array, list or tensor index; augpy_index_get returns self[key], augpy_index_set
 * does self[key] = value (0 or -1). */
int augpy_index_is_advanced(augpy_state *st, PyObject *key);
/* One basic index item (int, slice, None, Ellipsis) of key; IndexError otherwise (tensor.c). */
int augpy_parse_index_item(PyObject *item, aug_index *ix, const char *func);
PyObject *augpy_index_get(augpy_state *st, PyObject *self, PyObject *key, const char *func);
int augpy_index_set(augpy_state *st, PyObject *self, PyObject *key, PyObject *value, const char *func);

/* Number protocol implemented in ops.c and installed on the Tensor type by tensor.c. */
PyObject *augpy_tensor_richcompare(PyObject *a, PyObject *b, int op);     /* ops.c */
extern PyType_Slot augpy_tensor_number_slots[];                           /* ops.c, {0, NULL}-terminated */

/* Buffer protocol, numpy conversion methods and the creation/conversion
 * functions array_to_tensor, tensor_to_array, empty_like (tensor_io.c). */
int augpy_tensor_getbuffer(PyObject *self, Py_buffer *view, int flags);
void augpy_tensor_releasebuffer(PyObject *self, Py_buffer *view);
PyObject *augpy_tensor_numpy_method(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *augpy_tensor_array_method(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *augpy_tensor_to_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *augpy_tensor_cpu_method(PyObject *self, PyObject *Py_UNUSED(u));
PyObject *augpy_tensor_cuda_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* DLPack protocol methods of the Tensor type (dlpack.c), installed by tensor.c. */
PyObject *augpy_tensor_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *augpy_tensor_dlpack_device(PyObject *self, PyObject *unused);

/* Release the GIL around a C call on tensors larger than this many elements. */
#define AUGPY_GIL_THRESHOLD 65536

/* ---- calls into the C library ------------------------------------------------ */

/* Ctrl-C inside calls that release the GIL (interrupt.c): in the main thread,
 * augpy_interrupt_begin installs an interrupt check that runs Python's signal
 * handlers every ~10 ms; a handler that raises stops the call, which returns
 * AUG_ERR_INTERRUPTED with the handler's exception (KeyboardInterrupt) set.
 * augpy_interrupt_end restores the thread's previous check. GIL held for both. */
typedef struct {
    int installed;
    aug_interrupt_check saved;
    void *saved_ctx;
} augpy_interrupt_scope;
void augpy_interrupt_begin(augpy_interrupt_scope *scope);
void augpy_interrupt_end(augpy_interrupt_scope *scope);

/* status = call (any result: a status or a pointer), with the GIL released (and Ctrl-C
 * polled) when nelem > AUGPY_GIL_THRESHOLD. */
#define AUGPY_CALL(status, nelem, call)                                       \
    do {                                                                      \
        if ((nelem) > AUGPY_GIL_THRESHOLD) {                                  \
            augpy_interrupt_scope augpy_scope_;                               \
            augpy_interrupt_begin(&augpy_scope_);                             \
            Py_BEGIN_ALLOW_THREADS (status) = (call); Py_END_ALLOW_THREADS    \
            augpy_interrupt_end(&augpy_scope_);                               \
        } else {                                                              \
            (status) = (call);                                                \
        }                                                                     \
    } while (0)

/* AUGPY_CALL between augpy_launch_begin and augpy_launch_end. */
#define AUGPY_CALL_LAUNCH(status, launch, nelem, call)  \
    do {                                                \
        augpy_launch_begin(&(launch));                  \
        AUGPY_CALL(status, nelem, call);                \
        augpy_launch_end(&(launch));                    \
    } while (0)

/* The augpy.math functions and Tensor math methods, generated from the PY
 * column of the C op list (aug/ops.h AUG_OP_LIST): AUGPY_MATH_OPS expands
 * AUGPY_MATH_FUNCTION(name, OP) for every op whose PY is MATH or METHOD, and
 * AUGPY_MATH_METHOD(name, OP) for every op whose PY is METHOD; a file defines
 * both before expanding it. So a math op added to the C list is exposed as
 * augpy.math.<name> (and Tensor.<name>) once mathfuncs.c has its docstring
 * DOC_<name> (a compile error until then). */
#define AUGPY_MATH_PY_NONE(name, OP)
#define AUGPY_MATH_PY_MATH(name, OP) AUGPY_MATH_FUNCTION(name, OP)
#define AUGPY_MATH_PY_METHOD(name, OP) AUGPY_MATH_FUNCTION(name, OP) AUGPY_MATH_METHOD(name, OP)
#define AUGPY_MATH_SELECT_(e, sym, arity, name, cls, fam, b, py) AUGPY_MATH_PY_##py(name, e)
#define AUGPY_MATH_OPS AUG_OP_LIST(AUGPY_MATH_SELECT_)

/* An augpy.math function on operands args (self, when not NULL, is the first):
 * parsing, promotion and errors (naming func) as augpy.math.<op>. (mathfuncs.c) */
PyObject *augpy_math_call(augpy_state *st, PyObject *self, aug_op op, const char *func, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames);

/* The tensor methods and properties of tensor_methods.c (astype, clone, tolist,
 * item, T, permute, squeeze, view, clip, the array interfaces, pickling), str(t),
 * and the module's pickle reconstructor _rebuild_tensor. */
extern PyMethodDef augpy_tensor_extra_methods[];
extern PyGetSetDef augpy_tensor_extra_getset[];
PyObject *augpy_tensor_str(PyObject *self);
int augpy_init_tensor_methods(PyObject *module, augpy_state *st);
int augpy_init_rrc(PyObject *module, augpy_state *st);

/* ---- per-sample streams (random.c) ------------------------------------------ */
/* An int in [0, 2^64) (or __index__; bool refused): TypeError "func: name must be an
 * int ...", ValueError "func: name = V is out of range [0, 2**64)". 0 or -1. */
int augpy_parse_uint64(PyObject *obj, uint64_t *out, const char *func, const char *name);
/* A sequence of (seed, calls) pairs (the per-image generator states of
 * aug_random_resized_crop_states / aug_color_jitter_sample_states), read from a
 * snapshot of the sequence and of each pair (a __index__ that changes the list
 * changes nothing). *out: a new PyMem array of the states (at least one slot; the
 * caller frees it with PyMem_Free). Returns their number, or -1 with TypeError /
 * ValueError naming func and name (and *out NULL). */
Py_ssize_t augpy_parse_rng_states(PyObject *obj, aug_rng_state **out, const char *func, const char *name);

/* Tensor methods of the files beside tensor.c, {NULL}-terminated; tensor.c
 * installs them on the Tensor type. */
extern PyMethodDef augpy_tensor_op_methods[];     /* ops.c: fill */
extern PyMethodDef augpy_tensor_reduce_methods[]; /* reduce.c: sum, min, max, mean, all, any */
extern PyMethodDef augpy_tensor_math_methods[];   /* mathfuncs.c: the math ops whose PY is METHOD */
/* The argument specs of those tables' methods ({NULL}-terminated; tensor.c signs
 * each table with its list); augpy_tensor_io_sigs: to, cuda of tensor.c's own. */
extern augpy_sig *const augpy_tensor_io_sigs[];
extern augpy_sig *const augpy_tensor_op_sigs[];
extern augpy_sig *const augpy_tensor_reduce_sigs[];
extern augpy_sig *const augpy_tensor_math_sigs[];
extern augpy_sig *const augpy_tensor_extra_sigs[];

#endif
