/* _augpy/errors.c: augpy's exception classes and the one mapping from aug_status
 * to a Python exception.
 *
 * CudaError, CuRandError, CuBlasError and NvJpegError derive from RuntimeError;
 * augpy.MemoryError derives from the builtin MemoryError (semantics §16), so
 * `except MemoryError` catches an out-of-memory tensor allocation too.
 * AUG_ERR_JPEG (the decoders' status) is DecodeError, a subclass of NvJpegError,
 * for every decode error whatever the engine (libjpeg-turbo, libspng, nvJPEG:
 * its failures say "nvJPEG failed in <call>: NVJPEG_STATUS_X") and the header
 * readers; `except NvJpegError` catches it too.
 *
 * Messages name the Python function: aug_last_error_detail() (the C message
 * without its "aug_xxx: " part) after the Python name given by the caller. */
#include <string.h>
#include "augpy.h"

static PyObject *exception_for(augpy_state *st, aug_status status) {
    switch (status) {
    case AUG_ERR_VALUE: return PyExc_ValueError;
    case AUG_ERR_TYPE: return PyExc_TypeError;
    case AUG_ERR_INDEX: return PyExc_IndexError;
    case AUG_ERR_MEMORY: return st && st->MemoryError ? st->MemoryError : PyExc_MemoryError;
    case AUG_ERR_OVERFLOW: return PyExc_OverflowError;
    case AUG_ERR_CUDA: return st && st->CudaError ? st->CudaError : PyExc_RuntimeError;
    case AUG_ERR_CURAND: return st && st->CuRandError ? st->CuRandError : PyExc_RuntimeError;
    case AUG_ERR_CUBLAS: return st && st->CuBlasError ? st->CuBlasError : PyExc_RuntimeError;
    case AUG_ERR_JPEG: return st && st->DecodeError ? st->DecodeError : PyExc_RuntimeError;
    default: return PyExc_RuntimeError;
    }
}

/* AUG_OK passed by a caller whose C call returned NULL: use the thread's status. */
static aug_status effective_status(aug_status status) {
    if (status != AUG_OK) return status;
    status = aug_last_status();
    return status != AUG_OK ? status : AUG_ERR_RUNTIME;
}

PyObject *augpy_raise(augpy_state *st, aug_status status, const char *func) {
    status = effective_status(status);
    if (status == AUG_ERR_INTERRUPTED) {
        /* stopped by the interrupt check (interrupt.c): a signal handler's exception is set */
        if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    if (func == NULL) func = aug_last_error_function();
    if (func == NULL || func[0] == '\0') func = "augpy";
    const char *detail = aug_last_error_detail();
    if (detail == NULL || detail[0] == '\0') {
        PyErr_Format(exception_for(st, status), "%s: operation failed (status %d)", func, (int)status);
        return NULL;
    }
    PyErr_Format(exception_for(st, status), "%s: %s", func, detail);
    return NULL;
}

/* doc starts with the class's text signature ("Name(*args)\n--\n\n"), which gives
 * inspect.signature its signature (a heap type's __doc__ keeps the header). */
static int add_exception(PyObject *module, PyObject **slot, const char *name, PyObject *base,
                         const char *doc) {
    *slot = PyErr_NewExceptionWithDoc(name, doc, base, NULL);
    if (*slot == NULL) return -1;
    const char *dot = strrchr(name, '.');
    return PyModule_AddObjectRef(module, dot ? dot + 1 : name, *slot);
}

int augpy_init_errors(PyObject *module, augpy_state *st) {
    if (add_exception(module, &st->CudaError, "augpy.CudaError", PyExc_RuntimeError,
                      "CudaError(*args)\n--\n\n"
                      "Raised when a problem with a GPU occurs, e.g., device is unavailable or invalid "
                      "kernel configuration.") < 0)
        return -1;
    if (add_exception(module, &st->CuRandError, "augpy.CuRandError", PyExc_RuntimeError,
                      "CuRandError(*args)\n--\n\n"
                      "Raised when a problem with CuRand occurs, e.g., no memory left for random state.") < 0)
        return -1;
    if (add_exception(module, &st->CuBlasError, "augpy.CuBlasError", PyExc_RuntimeError,
                      "CuBlasError(*args)\n--\n\n"
                      "Raised when a problem with CuBlas (or the CPU BLAS) occurs.") < 0)
        return -1;
    if (add_exception(module, &st->MemoryError, "augpy.MemoryError", PyExc_MemoryError,
                      "MemoryError(*args)\n--\n\n"
                      "Raised when a problem with device memory occurs, e.g., no memory left for a "
                      "tensor. Subclass of the builtin MemoryError.") < 0)
        return -1;
    if (add_exception(module, &st->NvJpegError, "augpy.NvJpegError", PyExc_RuntimeError,
                      "NvJpegError(*args)\n--\n\n"
                      "Raised when a problem with JPEG decoding occurs, e.g., corrupt or unsupported "
                      "image (alias augpy.JpegError). Every decode error is its subclass DecodeError, "
                      "whatever the decoder's engine; `except augpy.NvJpegError` catches it.") < 0)
        return -1;
    if (add_exception(module, &st->DecodeError, "augpy.DecodeError", st->NvJpegError,
                      "DecodeError(*args)\n--\n\n"
                      "Raised when an image cannot be decoded (libjpeg-turbo, libspng, libwebp, libtiff, libavif or nvJPEG, whatever "
                      "the decoder's engine) or its header cannot be read: a corrupt, truncated or "
                      "unsupported JPEG, PNG, WebP, TIFF or AVIF (the decoder's reason in the message; nvJPEG's failures "
                      "read \"nvJPEG failed in <call>: NVJPEG_STATUS_X\"), one over the decoder's "
                      "max_pixels, or data that "
                      "is none of them (\"not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 3c 68 74 6d 6c 3e 0a 3c)\": its "
                      "first bytes in hex). Subclass of NvJpegError, so `except augpy.NvJpegError` "
                      "catches it too.") < 0)
        return -1;
    return 0;
}
