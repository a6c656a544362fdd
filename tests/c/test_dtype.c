/* tests/c/test_dtype.c: dtype traits, DLPack codes, promotion and scalars
 * (semantics §1, §6), checked against values written out here from semantics.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include "core/ctype.h"

static const char *names[AUG_NUM_DTYPES] = {"bool",   "int8",   "int16",   "int32",    "int64",
                                            "uint8",  "uint16", "uint32",  "uint64",   "float16",
                                            "bfloat16", "float32", "float64"};

/* semantics §1 table: (code, bits), size, temp type. */
static void test_traits(void **state) {
    (void)state;
    static const struct { int code, bits; aug_kind kind; aug_dtype temp; } t[AUG_NUM_DTYPES] = {
        {6, 8, AUG_KIND_BOOL, AUG_FLOAT32},   {0, 8, AUG_KIND_INT, AUG_FLOAT32},
        {0, 16, AUG_KIND_INT, AUG_FLOAT32},   {0, 32, AUG_KIND_INT, AUG_FLOAT64},
        {0, 64, AUG_KIND_INT, AUG_FLOAT64},   {1, 8, AUG_KIND_UINT, AUG_FLOAT32},
        {1, 16, AUG_KIND_UINT, AUG_FLOAT32},  {1, 32, AUG_KIND_UINT, AUG_FLOAT64},
        {1, 64, AUG_KIND_UINT, AUG_FLOAT64},  {2, 16, AUG_KIND_FLOAT, AUG_FLOAT32},
        {4, 16, AUG_KIND_FLOAT, AUG_FLOAT32}, {2, 32, AUG_KIND_FLOAT, AUG_FLOAT32},
        {2, 64, AUG_KIND_FLOAT, AUG_FLOAT64}};
    for (int d = 0; d < AUG_NUM_DTYPES; d++) {
        const aug_dtype_traits *tr = aug_dtype_info((aug_dtype)d);
        assert_non_null(tr);
        assert_string_equal(tr->name, names[d]);
        assert_string_equal(aug_dtype_name((aug_dtype)d), names[d]);
        assert_true(aug_dtype_is_valid((aug_dtype)d));
        assert_int_equal(tr->dl_code, t[d].code);
        assert_int_equal(tr->dl_bits, t[d].bits);
        assert_int_equal(tr->size * 8, t[d].bits);
        assert_int_equal(tr->kind, t[d].kind);
        assert_int_equal(tr->temp, t[d].temp);
        assert_int_equal(aug__ctype_size(d), tr->size);
        assert_string_equal(aug__ctype_name(d), names[d]);
    }
    const aug_dtype_traits *tr = aug_dtype_info(AUG_INT8);
    assert_true(tr->imin == -128 && tr->umax == 127 && tr->fmin == -128.0 && tr->fmax == 127.0);
    tr = aug_dtype_info(AUG_INT64);
    assert_true(tr->imin == INT64_MIN && tr->umax == (uint64_t)INT64_MAX);
    assert_true(tr->fmin == -0x1p63 && tr->fmax == 0x1p63 - 1024); /* rounded inward */
    tr = aug_dtype_info(AUG_UINT64);
    assert_true(tr->imin == 0 && tr->umax == UINT64_MAX && tr->fmax == 0x1p64 - 2048);
    tr = aug_dtype_info(AUG_UINT32);
    assert_true(tr->umax == UINT32_MAX && tr->fmax == 4294967295.0);
    tr = aug_dtype_info(AUG_BOOL);
    assert_true(tr->imin == 0 && tr->umax == 1);
    assert_true(aug_dtype_info(AUG_FLOAT16)->fmax == 65504.0 && aug_dtype_info(AUG_FLOAT16)->fmin == -65504.0);
    assert_true(aug_dtype_info(AUG_BFLOAT16)->fmax == 0x1.fep127);
    assert_true(aug_dtype_info(AUG_FLOAT32)->fmax == FLT_MAX);
    assert_true(aug_dtype_info(AUG_FLOAT64)->fmin == -DBL_MAX);
    assert_int_equal(aug__ctype_size(AUG__I128), 16);
    assert_string_equal(aug__ctype_name(AUG__I128), "int128");
    assert_int_equal(aug__ctype_size(99), 0);
}

static void test_invalid_dtype(void **state) {
    (void)state;
    aug_clear_error();
    assert_null(aug_dtype_info((aug_dtype)99));
    assert_string_equal(aug_last_error(), "aug_dtype_info: invalid dtype 99");
    assert_int_equal(aug_last_status(), AUG_ERR_TYPE);
    assert_null(aug_dtype_info(AUG_DTYPE_AUTO));
    assert_null(aug_dtype_info(AUG_NUM_DTYPES));
    assert_string_equal(aug_dtype_name((aug_dtype)99), "invalid");
    assert_string_equal(aug_dtype_name(AUG_DTYPE_AUTO), "invalid");
    assert_false(aug_dtype_is_valid((aug_dtype)99));
    assert_false(aug_dtype_is_valid(AUG_DTYPE_AUTO));
    assert_false(aug_dtype_is_valid(AUG_NUM_DTYPES));
}

static void test_dlpack(void **state) {
    (void)state;
    static const struct { int code, bits; aug_dtype d; } ok[] = {
        {6, 8, AUG_BOOL},    {0, 8, AUG_INT8},     {0, 16, AUG_INT16},    {0, 32, AUG_INT32},
        {0, 64, AUG_INT64},  {1, 8, AUG_UINT8},    {1, 16, AUG_UINT16},   {1, 32, AUG_UINT32},
        {1, 64, AUG_UINT64}, {2, 16, AUG_FLOAT16}, {4, 16, AUG_BFLOAT16}, {2, 32, AUG_FLOAT32},
        {2, 64, AUG_FLOAT64}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        aug_dtype d = (aug_dtype)77;
        assert_int_equal(aug_dtype_from_dlpack((uint8_t)ok[i].code, (uint8_t)ok[i].bits, 1, &d), AUG_OK);
        assert_int_equal(d, ok[i].d);
    }
    aug_dtype d = AUG_UINT8;
    assert_int_equal(aug_dtype_from_dlpack(1, 8, 2, &d), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_dtype_from_dlpack: lanes must be 1, got 2");
    assert_int_equal(aug_dtype_from_dlpack(0, 7, 1, &d), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_dtype_from_dlpack: unsupported DLPack dtype (code 0, bits 7)");
    assert_int_equal(aug_dtype_from_dlpack(6, 1, 1, &d), AUG_ERR_TYPE);  /* bool is 8 bits */
    assert_int_equal(aug_dtype_from_dlpack(4, 32, 1, &d), AUG_ERR_TYPE); /* only bfloat16 */
    assert_int_equal(aug_dtype_from_dlpack(2, 8, 1, &d), AUG_ERR_TYPE);
    assert_int_equal(aug_dtype_from_dlpack(3, 8, 1, &d), AUG_ERR_TYPE);  /* kDLOpaqueHandle */
    assert_int_equal(aug_dtype_from_dlpack(5, 64, 1, &d), AUG_ERR_TYPE); /* kDLComplex */
    assert_int_equal(aug_dtype_from_dlpack(1, 8, 0, &d), AUG_ERR_TYPE);
    assert_int_equal(d, AUG_UINT8); /* untouched on error */
    assert_int_equal(aug_dtype_from_dlpack(1, 8, 1, NULL), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_dtype_from_dlpack: out is NULL");
}

/* semantics §6, the upper triangle exactly as printed. */
static const char *spec_rows[AUG_NUM_DTYPES] = {
    "b i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64",
    "i8 i16 i32 i64 i16 i32 i64 i64 f16 bf16 f32 f64",
    "i16 i32 i64 i16 i32 i64 i64 f16 bf16 f32 f64",
    "i32 i64 i32 i32 i64 i64 f16 bf16 f32 f64",
    "i64 i64 i64 i64 i64 f16 bf16 f32 f64",
    "u8 u16 u32 u64 f16 bf16 f32 f64",
    "u16 u32 u64 f16 bf16 f32 f64",
    "u32 u64 f16 bf16 f32 f64",
    "u64 f16 bf16 f32 f64",
    "f16 f32 f32 f64",
    "bf16 f32 f64",
    "f32 f64",
    "f64"};

static aug_dtype short_name(const char *s, size_t n) {
    static const char *abbr[AUG_NUM_DTYPES] = {"b",   "i8",  "i16", "i32",  "i64", "u8", "u16",
                                               "u32", "u64", "f16", "bf16", "f32", "f64"};
    for (int d = 0; d < AUG_NUM_DTYPES; d++)
        if (strlen(abbr[d]) == n && strncmp(abbr[d], s, n) == 0) return (aug_dtype)d;
    fail_msg("bad abbreviation %.*s", (int)n, s);
    return AUG_DTYPE_AUTO;
}

static void test_promote(void **state) {
    (void)state;
    for (int a = 0; a < AUG_NUM_DTYPES; a++) {
        const char *p = spec_rows[a];
        for (int b = a; b < AUG_NUM_DTYPES; b++) {
            while (*p == ' ') p++;
            size_t n = strcspn(p, " ");
            assert_true(n > 0);
            aug_dtype want = short_name(p, n);
            p += n;
            assert_int_equal(aug_promote((aug_dtype)a, (aug_dtype)b), want);
            assert_int_equal(aug_promote((aug_dtype)b, (aug_dtype)a), want);
        }
        assert_int_equal(*p, '\0');
    }
    /* intX with uintY -> int(min(64, max(X, 2Y))) */
    static const aug_dtype si[4] = {AUG_INT8, AUG_INT16, AUG_INT32, AUG_INT64};
    static const aug_dtype ui[4] = {AUG_UINT8, AUG_UINT16, AUG_UINT32, AUG_UINT64};
    for (int x = 0; x < 4; x++)
        for (int y = 0; y < 4; y++) {
            int bits = 8 << x > 16 << y ? 8 << x : 16 << y;
            if (bits > 64) bits = 64;
            int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
            assert_int_equal(aug_promote(si[x], ui[y]), si[k]);
        }
    aug_clear_error();
    assert_int_equal(aug_promote((aug_dtype)99, AUG_INT8), AUG_DTYPE_AUTO);
    assert_string_equal(aug_last_error(), "aug_promote: invalid dtype 99");
    assert_int_equal(aug_promote(AUG_INT8, (aug_dtype)-5), AUG_DTYPE_AUTO);
    assert_string_equal(aug_last_error(), "aug_promote: invalid dtype -5");
}

static void test_scalar_constructors(void **state) {
    (void)state;
    aug_scalar s = aug_scalar_int(-7);
    assert_true(s.dtype == AUG_INT64 && s.weak == 1 && s.v.i == -7);
    s = aug_scalar_uint(5);
    assert_true(s.dtype == AUG_INT64 && s.weak == 1 && s.v.i == 5);
    s = aug_scalar_uint((uint64_t)INT64_MAX);
    assert_true(s.dtype == AUG_INT64 && s.v.i == INT64_MAX);
    s = aug_scalar_uint((uint64_t)INT64_MAX + 1);
    assert_true(s.dtype == AUG_UINT64 && s.weak == 1 && s.v.u == (uint64_t)INT64_MAX + 1);
    s = aug_scalar_float(0.25);
    assert_true(s.dtype == AUG_FLOAT64 && s.weak == 1 && s.v.f == 0.25);
    s = aug_scalar_bool(5);
    assert_true(s.dtype == AUG_BOOL && s.weak == 0 && s.v.i == 1);
    s = aug_scalar_bool(0);
    assert_true(s.v.i == 0);
}

static void test_scalar_typed(void **state) {
    (void)state;
    aug_scalar s;
    assert_int_equal(aug_scalar_typed_int(300, AUG_UINT8, &s), AUG_OK);
    assert_true(s.dtype == AUG_UINT8 && s.weak == 0 && s.v.u == 255);
    assert_int_equal(aug_scalar_typed_int(-5, AUG_UINT8, &s), AUG_OK);
    assert_true(s.v.u == 0);
    assert_int_equal(aug_scalar_typed_int(-300, AUG_INT8, &s), AUG_OK);
    assert_true(s.dtype == AUG_INT8 && s.v.i == -128);
    assert_int_equal(aug_scalar_typed_int(-3, AUG_BOOL, &s), AUG_OK);
    assert_true(s.dtype == AUG_BOOL && s.v.i == 1);
    assert_int_equal(aug_scalar_typed_uint(UINT64_MAX, AUG_INT64, &s), AUG_OK);
    assert_true(s.v.i == INT64_MAX);
    assert_int_equal(aug_scalar_typed_uint(UINT64_MAX, AUG_UINT64, &s), AUG_OK);
    assert_true(s.v.u == UINT64_MAX);
    assert_int_equal(aug_scalar_typed_float(2.5, AUG_INT32, &s), AUG_OK);
    assert_true(s.v.i == 2);
    assert_int_equal(aug_scalar_typed_float(-1.5, AUG_INT32, &s), AUG_OK);
    assert_true(s.v.i == -2);
    assert_int_equal(aug_scalar_typed_float(NAN, AUG_UINT16, &s), AUG_OK);
    assert_true(s.v.u == 0);
    assert_int_equal(aug_scalar_typed_float(-INFINITY, AUG_INT64, &s), AUG_OK);
    assert_true(s.v.i == INT64_MIN);
    assert_int_equal(aug_scalar_typed_float(0x1p64, AUG_UINT64, &s), AUG_OK);
    assert_true(s.v.u == UINT64_MAX);
    /* typed floats hold the value already rounded to their type */
    assert_int_equal(aug_scalar_typed_float(0.1, AUG_FLOAT32, &s), AUG_OK);
    assert_true(s.dtype == AUG_FLOAT32 && s.v.f == (double)0.1f);
    assert_int_equal(aug_scalar_typed_float(0.1, AUG_FLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 1638.0 / 16384.0); /* 0.1 in float16: 0x2e66 = 1638 * 2^-14 */
    assert_int_equal(aug_scalar_typed_float(1e10, AUG_FLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 65504.0);
    assert_int_equal(aug_scalar_typed_float(1e300, AUG_FLOAT32, &s), AUG_OK);
    assert_true(s.v.f == FLT_MAX);
    assert_int_equal(aug_scalar_typed_float(-INFINITY, AUG_BFLOAT16, &s), AUG_OK);
    assert_true(s.v.f == -INFINITY);
    assert_int_equal(aug_scalar_typed_float(1.0 + 0x1p-8, AUG_BFLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 1.0); /* tie to even */
    assert_int_equal(aug_scalar_typed_float(NAN, AUG_FLOAT16, &s), AUG_OK);
    assert_true(isnan(s.v.f));
    /* integers are rounded once, straight to the type */
    assert_int_equal(aug_scalar_typed_int(((int64_t)1 << 53) + 1, AUG_FLOAT64, &s), AUG_OK);
    assert_true(s.v.f == 0x1p53);
    assert_int_equal(aug_scalar_typed_int(((int64_t)1 << 62) + ((int64_t)1 << 38) + 1, AUG_FLOAT32, &s), AUG_OK);
    assert_true(s.v.f == 0x1p62 + 0x1p39);
    assert_int_equal(aug_scalar_typed_int((1 << 24) + (1 << 16) + 1, AUG_BFLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 0x1p24 + 0x1p17);
    assert_int_equal(aug_scalar_typed_int(65519, AUG_FLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 65504.0);
    assert_int_equal(aug_scalar_typed_int(2049, AUG_FLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 2048.0);
    assert_int_equal(aug_scalar_typed_int(2051, AUG_FLOAT16, &s), AUG_OK);
    assert_true(s.v.f == 2052.0);

    aug_clear_error();
    s.dtype = AUG_INT8;
    assert_int_equal(aug_scalar_typed_int(1, (aug_dtype)99, &s), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_scalar_typed_int: invalid dtype 99");
    assert_int_equal(s.dtype, AUG_INT8);
    assert_int_equal(aug_scalar_typed_uint(1, (aug_dtype)-1, &s), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_scalar_typed_uint: invalid dtype -1");
    assert_int_equal(aug_scalar_typed_float(1, AUG_NUM_DTYPES, &s), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_scalar_typed_float: invalid dtype 13");
    assert_int_equal(aug_scalar_typed_float(1, AUG_FLOAT32, NULL), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_scalar_typed_float: out is NULL");
}

/* semantics §6 weak-scalar rules. */
static void test_scalar_result_dtype(void **state) {
    (void)state;
    aug_scalar wi = aug_scalar_int(5), wu = aug_scalar_uint(UINT64_MAX), wf = aug_scalar_float(0.5);
    aug_scalar b = aug_scalar_bool(1), typed;
    assert_int_equal(aug_scalar_typed_int(5, AUG_INT16, &typed), AUG_OK);
    for (int d = 0; d < AUG_NUM_DTYPES; d++) {
        aug_dtype o = (aug_dtype)d;
        aug_kind k = aug_dtype_info(o)->kind;
        aug_dtype want_int = k == AUG_KIND_BOOL ? AUG_INT32 : o;
        aug_dtype want_float = k == AUG_KIND_FLOAT ? o : AUG_FLOAT32;
        assert_int_equal(aug_scalar_result_dtype(&wi, o), want_int);
        assert_int_equal(aug_scalar_result_dtype(&wu, o), want_int);
        assert_int_equal(aug_scalar_result_dtype(&wf, o), want_float);
        assert_int_equal(aug_scalar_result_dtype(&b, o), AUG_BOOL); /* non-weak: its own dtype */
        assert_int_equal(aug_scalar_result_dtype(&typed, o), AUG_INT16);
    }
    aug_scalar wb = b;
    wb.weak = 1; /* a weak bool acts as a bool tensor */
    assert_int_equal(aug_scalar_result_dtype(&wb, AUG_UINT8), AUG_UINT8);
    assert_int_equal(aug_scalar_result_dtype(&wb, AUG_BOOL), AUG_BOOL);
    aug_clear_error();
    assert_int_equal(aug_scalar_result_dtype(NULL, AUG_UINT8), AUG_DTYPE_AUTO);
    assert_string_equal(aug_last_error(), "aug_scalar_result_dtype: scalar is NULL");
    assert_int_equal(aug_scalar_result_dtype(&wi, (aug_dtype)99), AUG_DTYPE_AUTO);
    assert_string_equal(aug_last_error(), "aug_scalar_result_dtype: invalid dtype 99");
    wi.dtype = (aug_dtype)50;
    assert_int_equal(aug_scalar_result_dtype(&wi, AUG_UINT8), AUG_DTYPE_AUTO);
    assert_string_equal(aug_last_error(), "aug_scalar_result_dtype: invalid scalar dtype 50");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traits),          cmocka_unit_test(test_invalid_dtype),
        cmocka_unit_test(test_dlpack),          cmocka_unit_test(test_promote),
        cmocka_unit_test(test_scalar_constructors), cmocka_unit_test(test_scalar_typed),
        cmocka_unit_test(test_scalar_result_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
