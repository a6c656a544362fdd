/* cuda/values.cuh: one value of any dtype read as float / double / aug__i128, and a float
 * or double stored into any dtype, with scalar/cast.h's rules (private; the
 * image kernels' loads and stores; each records its access for the emulation's
 * memory-efficiency counter, scalar/hd.h AUG__MEM_LOAD). */
#ifndef AUG_CUDA_VALUES_CUH
#define AUG_CUDA_VALUES_CUH

#include <string.h>
#include "cuda/cuda.h"

/* The value of ctype t at p (any alignment) as float / double. */
#define AUG__LOAD_AS_CASE_(D, S)                  \
    case AUG__CT_##S: {                           \
        AUG__CT_T(S) x;                           \
        memcpy(&x, p, sizeof x);                  \
        return AUG__CV(S, D, x);                  \
    }
AUG_DEV float aug__load_f32(const char *p, int t) {
    AUG__MEM_LOAD(p, aug__ctype_size(t));
    switch (t) {
        AUG__CTYPE_LIST_WITH(AUG__LOAD_AS_CASE_, FLOAT32)
    default: return 0.0f;
    }
}
AUG_DEV double aug__load_f64(const char *p, int t) {
    AUG__MEM_LOAD(p, aug__ctype_size(t));
    switch (t) {
        AUG__CTYPE_LIST_WITH(AUG__LOAD_AS_CASE_, FLOAT64)
    default: return 0.0;
    }
}
/* ... and as aug__i128 (exact for every integer ctype; floats truncated as AUG__CV does). */
AUG_DEV aug__i128 aug__load_i128(const char *p, int t) {
    AUG__MEM_LOAD(p, aug__ctype_size(t));
    switch (t) {
        AUG__CTYPE_LIST_WITH(AUG__LOAD_AS_CASE_, I128)
    default: return 0;
    }
}
#undef AUG__LOAD_AS_CASE_
AUG_DEV float aug__load_as(const char *p, int t, float) { return aug__load_f32(p, t); }
AUG_DEV double aug__load_as(const char *p, int t, double) { return aug__load_f64(p, t); }

/* v stored into ctype t at p (saturate_cast). */
AUG_DEV void aug__store_f32(float v, int t, char *p) {
    AUG__MEM_STORE(p, aug__ctype_size(t));
    switch (t) {
#define AUG__STORE_AS_CASE_(S, D)                 \
    case AUG__CT_##D: {                           \
        AUG__CT_T(D) y = AUG__CV(S, D, v);        \
        memcpy(p, &y, sizeof y);                  \
        break;                                    \
    }
        AUG__CTYPE_LIST_WITH(AUG__STORE_AS_CASE_, FLOAT32)
#undef AUG__STORE_AS_CASE_
    default: break;
    }
}
AUG_DEV void aug__store_as(float v, int t, char *p) { aug__store_f32(v, t, p); }
AUG_DEV void aug__store_as(double v, int t, char *p) { aug__store_f64(v, t, p); }

#endif
