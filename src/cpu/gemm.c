/* cpu/gemm.c: aug__cpu_gemm through CBLAS (cblas_sgemm / cblas_dgemm, row-major).
 *
 * The core (core/gemm.c) hands over a plan in row-major BLAS terms (core/plan.h).
 * k == 0 and alpha == 0 are handled here (C = beta * C, with beta == 0 writing
 * exact zeros so garbage in C never leaks), as BLAS would not read A or B.
 *
 * The BLAS library is opened on the first gemm, not linked: OpenBLAS starts its
 * worker threads when it is loaded, and they poll (sched_yield) for about 0.1 s,
 * which took a core from every process that loads libaug (or imports augpy) and
 * never multiplies a matrix. The library is $AUG_BLAS when set, else the first of
 * BLAS_NAMES that loads; the CBLAS interface is a C ABI, so the standard enum
 * values are written here instead of including a header. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "cpu.h"
#include "core/error.h"

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                         int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);

static const char *const BLAS_NAMES[] = {"libopenblas.so.0", "libcblas.so.3", "libblas.so.3", "libopenblas.so",
                                         "libcblas.so"};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static sgemm_fn g_sgemm;
static dgemm_fn g_dgemm;
static char g_why[512]; /* why no library loaded (set once, read after g_once) */

/* The symbols of one library, or 0 with the reason in g_why. */
static int try_open(const char *name) {
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(g_why, sizeof g_why, "%s", e ? e : name);
        return 0;
    }
    /* dlsym returns an object pointer; POSIX guarantees the conversion */
    void *s = dlsym(h, "cblas_sgemm"), *d = dlsym(h, "cblas_dgemm");
    if (!s || !d) {
        snprintf(g_why, sizeof g_why, "%s has no cblas_sgemm / cblas_dgemm", name);
        dlclose(h);
        return 0;
    }
    *(void **)&g_sgemm = s;
    *(void **)&g_dgemm = d;
    return 1; /* kept open for the life of the process */
}

static void load_blas(void) {
    const char *env = getenv("AUG_BLAS");
    if (env && *env) {
        try_open(env);
        return;
    }
    for (size_t i = 0; i < sizeof BLAS_NAMES / sizeof *BLAS_NAMES; i++)
        if (try_open(BLAS_NAMES[i])) return;
}

/* C = beta * C over the (m, n) row-major C. */
static void scale_c(const aug__gemm_plan *p) {
    for (int64_t i = 0; i < p->m; i++) {
        if (p->dtype == AUG_FLOAT32) {
            float *row = (float *)(void *)p->c + i * p->ldc;
            for (int64_t j = 0; j < p->n; j++) row[j] = p->beta == 0.0 ? 0.0f : (float)(p->beta * row[j]);
        } else {
            double *row = (double *)(void *)p->c + i * p->ldc;
            for (int64_t j = 0; j < p->n; j++) row[j] = p->beta == 0.0 ? 0.0 : p->beta * row[j];
        }
    }
}

aug_status aug__cpu_gemm(const aug__gemm_plan *p) {
    if (p->k == 0 || p->alpha == 0.0) {
        scale_c(p);
        return AUG_OK;
    }
    pthread_once(&g_once, load_blas);
    if (!g_sgemm)
        return aug__error(AUG_ERR_CUBLAS, "aug_gemm",
                          "no CBLAS library could be loaded (set AUG_BLAS to its path, e.g. libopenblas.so.0): %s",
                          g_why);
    int ta = p->trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS, tb = p->trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS;
    if (p->dtype == AUG_FLOAT32)
        g_sgemm(CBLAS_ROW_MAJOR, ta, tb, (int)p->m, (int)p->n, (int)p->k, (float)p->alpha,
                (const float *)(const void *)p->a, (int)p->lda, (const float *)(const void *)p->b, (int)p->ldb,
                (float)p->beta, (float *)(void *)p->c, (int)p->ldc);
    else
        g_dgemm(CBLAS_ROW_MAJOR, ta, tb, (int)p->m, (int)p->n, (int)p->k, p->alpha, (const double *)(const void *)p->a,
                (int)p->lda, (const double *)(const void *)p->b, (int)p->ldb, p->beta, (double *)(void *)p->c,
                (int)p->ldc);
    return AUG_OK;
}
