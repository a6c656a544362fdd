/* cuda/ew_where.cu: the "where" kernel family on the GPU: WHERE(cond, x, y) with
 * a bool condition and x, y and the result on one ctype, with scalar/select.h's
 * rule (the same function the CPU kernels call). */
#include "cuda/ew.cuh"
#include "scalar/select.h"

template <class T, class F>
AUG_GLOBAL void aug__k_where(aug__ew_args a, F f) {
    aug__ew_run3<uint8_t, T>(a, f);
}

#define DEF_WHERE(S, T)                                                                        \
    struct f_where_##S {                                                                       \
        static constexpr int vcap = AUG__EW_VCAP;                                              \
        AUG_DEV T operator()(uint8_t c, T x, T y) const { return aug__where_##S(c, x, y); }    \
    };                                                                                         \
    static aug_status l_where_##S(const char *func, const aug__ew_args *a, const aug__exec *e) { \
        f_where_##S f;                                                                         \
        AUG__EW_LAUNCH_BODY((aug__k_where<T, f_where_##S>), 4, (aug__ew_v<f_where_##S, uint8_t, T>())) \
    }

DEF_WHERE(b, uint8_t)
DEF_WHERE(i8, int8_t)
DEF_WHERE(i16, int16_t)
DEF_WHERE(i32, int32_t)
DEF_WHERE(i64, int64_t)
DEF_WHERE(u8, uint8_t)
DEF_WHERE(u16, uint16_t)
DEF_WHERE(u32, uint32_t)
DEF_WHERE(u64, uint64_t)
DEF_WHERE(f32, float)
DEF_WHERE(f64, double)
DEF_WHERE(i128, aug__i128)

aug__ew_launcher aug__cuda_where_launcher(int ctype) {
    static const aug__ew_launcher table[AUG__NUM_CTYPES] = {
        l_where_b,   l_where_i8,  l_where_i16, l_where_i32, l_where_i64, l_where_u8,  l_where_u16,
        l_where_u32, l_where_u64, NULL,        NULL,        l_where_f32, l_where_f64, l_where_i128,
    };
    return ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype];
}
