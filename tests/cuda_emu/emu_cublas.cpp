/* emu_cublas.cpp: the cuBLAS stand-in of the CUDA emulation.
 *
 * Implements the handle functions and S/D gemm under the symbols cublas_v2.h maps
 * the names to (cublasCreate -> cublasCreate_v2, ...). gemm keeps cuBLAS's
 * conventions: column-major operands, argument checks (m, n, k >= 0, valid
 * operations, lda >= max(1, rows of op(A)), ldb >= max(1, rows of op(B)), ldc >=
 * max(1, m), non-null alpha/beta -> else CUBLAS_STATUS_INVALID_VALUE), host
 * pointer mode only (alpha and beta are read at call time), and runs on the
 * handle's stream thread through OpenBLAS (cblas_?gemm, CblasColMajor) like a
 * kernel. A, B, C must be device memory large enough for their shapes, as on a GPU:
 * otherwise the call becomes a sticky launch failure of the device, with a
 * diagnostic, instead of touching host memory.
 *
 * The module opens cuBLAS at run time (cuda/dynlib.cu, cuda/cublas_api.h); here
 * lib_open answers libcublas.so.13 with this stand-in, and refuses it when
 * AUG_EMU_NO_CUBLAS=1 (any value but empty or 0), as a machine without cuBLAS
 * would, so tests see gemm fail with its message and everything else work.
 * libnvjpeg.so.13 opens the nvJPEG stand-in (emu_nvjpeg.cpp) when AUG_EMU_NVJPEG=1,
 * else fails like a missing file: never a real nvJPEG.
 * AUG_EMU_LIBS_IN_WHEELS=1 models a machine whose loader path has neither library,
 * only NVIDIA's PyPI wheels: both stand-ins answer only a path to an existing file
 * (an empty nvidia/cu13/lib/libcublas.so.13 in a site-packages folder stands for
 * the wheel), never the bare soname, so a test sees whether the module looked in
 * the wheels' folders (scripts/wheel_check.sh); aug_emu_lib_opened says which path
 * the module opened a stand-in through (which of the two it tries first). */
#include "emu_internal.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <cblas.h>
#include <dlfcn.h>
#include <unistd.h>
#ifdef AUG_EMU_NVJPEG
#include "emu_nvjpeg.h"
#endif

struct cublasContext {
    int device;
    cudaStream_t stream;
    cublasPointerMode_t mode;
};

namespace aug_emu {

static bool valid_op(cublasOperation_t t) { return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C; }

static CBLAS_TRANSPOSE to_cblas(cublasOperation_t t) {
    return t == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; /* real types: C == T */
}

/* Elements spanned by a column-major rows x cols matrix with leading dimension ld. */
static size_t span(int rows, int cols, int ld) {
    if (rows == 0 || cols == 0) return 0;
    return (size_t)ld * (size_t)(cols - 1) + (size_t)rows;
}

/* Each operand must be one device allocation covering its whole span. */
static std::string operand_problem(const char *what, const void *p, size_t bytes) {
    if (bytes == 0) return "";
    PtrInfo i = lookup_ptr(p);
    char buf[256];
    if (i.kind != ALLOC_DEVICE) {
        snprintf(buf, sizeof buf, "%s=%p is not device memory", what, p);
        return buf;
    }
    if (!in_range(i, p, bytes)) {
        snprintf(buf, sizeof buf, "%s=[%p, +%zu bytes) runs past its allocation of %zu bytes", what, p, bytes, i.size);
        return buf;
    }
    return "";
}

template <class T>
static cublasStatus_t gemm(const char *api, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                           int k, const T *alpha, const T *A, int lda, const T *B, int ldb, const T *beta, T *C,
                           int ldc) {
    if (api_enter() != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    int a_rows = ta == CUBLAS_OP_N ? m : k, a_cols = ta == CUBLAS_OP_N ? k : m;
    int b_rows = tb == CUBLAS_OP_N ? k : n, b_cols = tb == CUBLAS_OP_N ? n : k;
    if (!valid_op(ta) || !valid_op(tb) || m < 0 || n < 0 || k < 0 || lda < std::max(1, a_rows) ||
        ldb < std::max(1, b_rows) || ldc < std::max(1, m) || !alpha || !beta) {
        note("%s: invalid argument (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", api, m, n, k, lda, ldb, ldc);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    cudaError_t e;
    StreamImpl *s;
    {
        int saved = cur_device();
        cur_device() = h->device; /* the handle's legacy stream if it has none */
        s = resolve_stream(h->stream, &e);
        cur_device() = saved;
    }
    if (!s) return CUBLAS_STATUS_INVALID_VALUE;
    if (device_sticky(s->device) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS; /* quick return: C untouched */
    T al = *alpha, be = *beta; /* host pointer mode: read now */
    std::string p = operand_problem("C", C, span(m, n, ldc) * sizeof(T));
    if (p.empty() && k > 0 && al != T(0)) {
        p = operand_problem("A", A, span(a_rows, a_cols, lda) * sizeof(T));
        if (p.empty()) p = operand_problem("B", B, span(b_rows, b_cols, ldb) * sizeof(T));
    }
    std::string name = api;
    int dev = s->device;
    enqueue(s, [=](Executor &) {
        if (!p.empty()) {
            device_fault(dev, name + ": " + p);
            return;
        }
        if constexpr (std::is_same<T, float>::value)
            cblas_sgemm(CblasColMajor, to_cblas(ta), to_cblas(tb), m, n, k, al, A, lda, B, ldb, be, C, ldc);
        else
            cblas_dgemm(CblasColMajor, to_cblas(ta), to_cblas(tb), m, n, k, al, A, lda, B, ldb, be, C, ldc);
    });
    return CUBLAS_STATUS_SUCCESS;
}

} /* namespace aug_emu */

using namespace aug_emu;

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (enter_dev() != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    *handle = new cublasContext{cur_device(), nullptr, CUBLAS_POINTER_MODE_HOST};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!streamId) return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->mode;
    return CUBLAS_STATUS_SUCCESS;
}

/* Device pointer mode (alpha/beta read by the kernel) is not emulated. */
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (mode != CUBLAS_POINTER_MODE_HOST) return CUBLAS_STATUS_INVALID_VALUE;
    handle->mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
                              const float *beta, float *C, int ldc) {
    return gemm("cublasSgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const double *alpha, const double *A, int lda, const double *B, int ldb,
                              const double *beta, double *C, int ldc) {
    return gemm("cublasDgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

#define AUG_EMU_CUBLAS_STATUS(X)                                   \
    X(CUBLAS_STATUS_SUCCESS, "success")                            \
    X(CUBLAS_STATUS_NOT_INITIALIZED, "the library was not initialized") \
    X(CUBLAS_STATUS_ALLOC_FAILED, "the resource allocation failed") \
    X(CUBLAS_STATUS_INVALID_VALUE, "an invalid numeric value was used as an argument") \
    X(CUBLAS_STATUS_ARCH_MISMATCH, "an absent device architectural feature is required") \
    X(CUBLAS_STATUS_MAPPING_ERROR, "an access to GPU memory space failed") \
    X(CUBLAS_STATUS_EXECUTION_FAILED, "the GPU program failed to execute") \
    X(CUBLAS_STATUS_INTERNAL_ERROR, "an internal operation failed") \
    X(CUBLAS_STATUS_NOT_SUPPORTED, "the functionality requested is not supported") \
    X(CUBLAS_STATUS_LICENSE_ERROR, "there is an error with the license")

const char *cublasGetStatusName(cublasStatus_t status) {
#define X(code, text) \
    case code: return #code;
    switch (status) { AUG_EMU_CUBLAS_STATUS(X) default: return "CUBLAS_STATUS_UNKNOWN"; }
#undef X
}

const char *cublasGetStatusString(cublasStatus_t status) {
#define X(code, text) \
    case code: return text;
    switch (status) { AUG_EMU_CUBLAS_STATUS(X) default: return "unknown error"; }
#undef X
}

} /* extern "C" */

/* ---- opening it (cuda/dynlib.cu) ------------------------------------------------------ */

namespace aug_emu {

static char stand_in; /* the handle lib_open returns for it */
static thread_local const char *refused;
static std::mutex opened_mutex;
static std::string opened_cublas, opened_nvjpeg; /* aug_emu_lib_opened */

static void record_open(const char *base, const char *path) {
    std::lock_guard<std::mutex> lock(opened_mutex);
    (strcmp(base, "libcublas.so.13") == 0 ? opened_cublas : opened_nvjpeg) = path;
}

void *lib_open(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    refused = nullptr;
    const char *wheels_only = getenv("AUG_EMU_LIBS_IN_WHEELS");
    if (wheels_only && *wheels_only && strcmp(wheels_only, "0") != 0 &&
        (strcmp(base, "libnvjpeg.so.13") == 0 || strcmp(base, "libcublas.so.13") == 0) &&
        (base == path || access(path, F_OK) != 0)) {
        refused = "cannot open shared object file: No such file or directory (the emulated NVIDIA libraries are "
                  "only in the wheels' folders: AUG_EMU_LIBS_IN_WHEELS)";
        return nullptr;
    }
    const char *no_driver = getenv("AUG_EMU_NO_DRIVER");
    if (strcmp(base, "libcuda.so.1") == 0 && no_driver && strcmp(no_driver, "1") == 0) {
        refused = "libcuda.so.1: cannot open shared object file: No such file or directory (AUG_EMU_NO_DRIVER)";
        return nullptr;
    }
    if (strcmp(base, "libnvjpeg.so.13") == 0) { /* never a real nvJPEG with emulated streams */
#ifdef AUG_EMU_NVJPEG
        void *lib = nvjpeg_open(&refused);
        if (lib) record_open(base, path);
#else
        void *lib = nullptr;
        refused = "libnvjpeg.so.13: not in this emulation build (it found no nvjpeg.h)";
#endif
        return lib;
    }
    if (strcmp(base, "libcublas.so.13") != 0) return dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *off = getenv("AUG_EMU_NO_CUBLAS");
    if (off && *off && strcmp(off, "0") != 0) {
        refused = "libcublas.so.13: cannot open shared object file: No such file or directory (the emulated "
                  "cuBLAS is absent: AUG_EMU_NO_CUBLAS)";
        return nullptr;
    }
    record_open(base, path);
    return &stand_in;
}

void *lib_sym(void *lib, const char *name) {
#ifdef AUG_EMU_NVJPEG
    if (nvjpeg_is(lib)) {
        void *fn = nvjpeg_sym(name);
        if (!fn) refused = "the emulated nvJPEG lacks the function";
        return fn;
    }
#endif
    if (lib != &stand_in) return dlsym(lib, name);
    static const struct {
        const char *name;
        void *fn;
    } table[] = {
        {"cublasCreate_v2", (void *)&cublasCreate_v2},       {"cublasDestroy_v2", (void *)&cublasDestroy_v2},
        {"cublasSetStream_v2", (void *)&cublasSetStream_v2}, {"cublasGetStream_v2", (void *)&cublasGetStream_v2},
        {"cublasSgemm_v2", (void *)&cublasSgemm_v2},         {"cublasDgemm_v2", (void *)&cublasDgemm_v2},
    };
    for (const auto &t : table)
        if (strcmp(t.name, name) == 0) return t.fn;
    refused = "the emulated cuBLAS lacks the function";
    return nullptr;
}

const char *lib_error() {
    const char *r = refused;
    refused = nullptr;
    return r ? r : dlerror();
}

} /* namespace aug_emu */

/* The path the module last opened a stand-in library through ("libcublas.so.13" or
 * "libnvjpeg.so.13"): the bare soname (the loader's path) or a file's path (a wheel's
 * folder); "" before any. Exported for dlsym like aug_emu_set_order (cuda_emu.h), so
 * tests see where the module looked first (scripts/wheel_check.sh, wheel_emu_libs.py). */
extern "C" __attribute__((visibility("default"))) const char *aug_emu_lib_opened(const char *soname) {
    static thread_local std::string copy;
    std::lock_guard<std::mutex> lock(aug_emu::opened_mutex);
    copy = soname && strcmp(soname, "libcublas.so.13") == 0   ? aug_emu::opened_cublas
           : soname && strcmp(soname, "libnvjpeg.so.13") == 0 ? aug_emu::opened_nvjpeg
                                                                : std::string();
    return copy.c_str();
}
