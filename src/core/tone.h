/* core/tone.h: the tone family's plan and its per-value rules (private;
 * aug_invert, aug_posterize and aug_solarize in aug/colour.h, docs/colour.md).
 *
 * A tone op maps each value of an image on its own, with operands that may
 * differ per image of a batch: torchvision's invert, posterize and solarize.
 * The core checks the image, packs a strided one into a contiguous copy,
 * allocates the output and prepares each image's operands (aug__tone_arg);
 * a backend maps the contiguous values, image by image, with the rule of the
 * plan's kind. The CPU (gcc, C11) and the CUDA kernels (nvcc, and g++ for the
 * emulation) compile the same rules, and both backends generate their loops
 * from AUG__TONE_KINDS: a new kind is a row there, its four rules below and
 * its public function in core/tone.c. */
#ifndef AUG_CORE_TONE_H
#define AUG_CORE_TONE_H

#include "backend.h"
#include "scalar/hd.h"

/* The kinds: X(KIND, name) with rules aug__tone_<name>_{u8,u16,f32,f64}. */
#define AUG__TONE_KINDS(X)  \
    X(INVERT, invert)       \
    X(POSTERIZE, posterize) \
    X(SOLARIZE, solarize)

enum aug__tone_kind {
#define AUG__X(K, name) AUG__TONE_##K,
    AUG__TONE_KINDS(AUG__X)
#undef AUG__X
    AUG__TONE_NKINDS
};

/* One image's operands, in the types its rule computes in. */
typedef struct aug__tone_arg {
    uint32_t mask; /* posterize of an integer image: the kept high bits */
    float f[3];    /* float32 operands (posterize: levels, levels - 1, 1 / levels; solarize: threshold) */
    double d[3];   /* the same for float64 images */
} aug__tone_arg;

struct aug__tone_plan {
    const char *func;
    int kind;                  /* enum aug__tone_kind */
    int dtype;                 /* AUG_UINT8, AUG_UINT16, AUG_FLOAT32 or AUG_FLOAT64 */
    int64_t images;            /* >= 1: image i is values [i * per_image, (i + 1) * per_image) */
    int64_t per_image;         /* >= 1 */
    const aug__tone_arg *args; /* host memory: images operands (all equal when one was given) */
    const char *src;           /* images * per_image contiguous values (backend memory) */
    char *dst;                 /* the same count; == src (in place) or not overlapping it */
    aug__exec exec;
};

/* invert: max - x for the unsigned integers (bitwise not), 1 - x for floats. */
AUG_HD uint8_t aug__tone_invert_u8(uint8_t x, const aug__tone_arg *a) { return (void)a, (uint8_t)(0xffu ^ x); }
AUG_HD uint16_t aug__tone_invert_u16(uint16_t x, const aug__tone_arg *a) { return (void)a, (uint16_t)(0xffffu ^ x); }
AUG_HD float aug__tone_invert_f32(float x, const aug__tone_arg *a) { return (void)a, 1.0f - x; }
AUG_HD double aug__tone_invert_f64(double x, const aug__tone_arg *a) { return (void)a, 1.0 - x; }

/* posterize: an integer keeps its high `bits` bits (x & mask); a float becomes
 * clamp(floor(x * levels), 0, levels - 1) / levels with levels = 2^bits, in its
 * own type (torchvision v2's rule; NaN stays NaN). */
AUG_HD uint8_t aug__tone_posterize_u8(uint8_t x, const aug__tone_arg *a) { return (uint8_t)(x & a->mask); }
AUG_HD uint16_t aug__tone_posterize_u16(uint16_t x, const aug__tone_arg *a) { return (uint16_t)(x & a->mask); }
AUG_HD float aug__tone_posterize_f32(float x, const aug__tone_arg *a) {
    float y = floorf(x * a->f[0]);
    y = y < 0.0f ? 0.0f : y;
    return (y > a->f[1] ? a->f[1] : y) * a->f[2];
}
AUG_HD double aug__tone_posterize_f64(double x, const aug__tone_arg *a) {
    double y = floor(x * a->d[0]);
    y = y < 0.0 ? 0.0 : y;
    return (y > a->d[1] ? a->d[1] : y) * a->d[2];
}

/* solarize: x >= threshold ? invert(x) : x, compared as torch compares an image
 * with a Python float (float32 for the integer and float32 images). */
AUG_HD uint8_t aug__tone_solarize_u8(uint8_t x, const aug__tone_arg *a) {
    return (float)x >= a->f[0] ? aug__tone_invert_u8(x, a) : x;
}
AUG_HD uint16_t aug__tone_solarize_u16(uint16_t x, const aug__tone_arg *a) {
    return (float)x >= a->f[0] ? aug__tone_invert_u16(x, a) : x;
}
AUG_HD float aug__tone_solarize_f32(float x, const aug__tone_arg *a) {
    return x >= a->f[0] ? aug__tone_invert_f32(x, a) : x;
}
AUG_HD double aug__tone_solarize_f64(double x, const aug__tone_arg *a) {
    return x >= a->d[0] ? aug__tone_invert_f64(x, a) : x;
}

#endif
