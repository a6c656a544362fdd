/* codec/convert.c: host pixel conversions between the decoder's channel
 * modes and sample depths (codec/convert.h). */
#include "codec/convert.h"

#include <string.h>

/* 16-bit sample to the nearest 8-bit one: round(v * 255 / 65535). */
static inline unsigned to8(unsigned v) { return (v * 255u + 32767u) / 65535u; }

/* Pillow's rgb2l (ITU-R 601-2 luma, 16-bit fixed point, rounded); the weights
 * sum to 2^16, so a 16-bit sum stays below 2^32 and R = G = B gives R back. */
static inline unsigned luma(unsigned r, unsigned g, unsigned b) {
    return (r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16;
}

/* One sample of src in dst's depth. */
static inline unsigned sample(const uint8_t *s8, const uint16_t *s16, size_t k, int src16, int dst16) {
    if (src16) return dst16 ? s16[k] : to8(s16[k]);
    return dst16 ? s8[k] * 257u : s8[k];
}

static void copy_row(const uint8_t *s8, const uint16_t *s16, int src16, size_t n, uint8_t *d8, uint16_t *d16,
                     int dst16) {
    if (src16 == dst16) {
        memmove(dst16 ? (void *)d16 : (void *)d8, src16 ? (const void *)s16 : (const void *)s8, n << dst16);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        unsigned v = sample(s8, s16, k, src16, dst16);
        if (dst16) d16[k] = (uint16_t)v;
        else d8[k] = (uint8_t)v;
    }
}

void aug__convert_image(const void *src, int src_channels, int src16, int64_t src_width, int64_t y, int64_t x,
                        int64_t h, int64_t w, void *dst, int out_channels, int dst16) {
    size_t sc = (size_t)src_channels, oc = (size_t)out_channels;
    /* the channels are converted at the lower of the two depths, then widened:
     * an 8-bit file's uint16 output is its uint8 output times 257 in every mode */
    int work16 = src16 && dst16;
    unsigned max = work16 ? 65535u : 255u, widen = dst16 && !work16 ? 257u : 1u;
    for (int64_t i = 0; i < h; i++) {
        size_t row = ((size_t)(y + i) * (size_t)src_width + (size_t)x) * sc, orow = (size_t)i * (size_t)w * oc;
        const uint8_t *s8 = (const uint8_t *)src + row;
        const uint16_t *s16 = (const uint16_t *)src + row;
        uint8_t *d8 = (uint8_t *)dst + orow;
        uint16_t *d16 = (uint16_t *)dst + orow;
        if (sc == oc) {
            copy_row(s8, s16, src16, (size_t)w * sc, d8, d16, dst16);
            continue;
        }
        for (int64_t j = 0; j < w; j++) {
            size_t k = (size_t)j * sc, o = (size_t)j * oc;
            unsigned r = sample(s8, s16, k, src16, work16), g = r, b = r, a = max;
            if (sc >= 3) g = sample(s8, s16, k + 1, src16, work16), b = sample(s8, s16, k + 2, src16, work16);
            if (sc == 2 || sc == 4) a = sample(s8, s16, k + sc - 1, src16, work16);
            unsigned v[4] = {r, g, b, a};
            if (oc <= 2) v[0] = sc >= 3 ? luma(r, g, b) : r, v[1] = a;
            for (size_t c = 0; c < oc; c++) {
                if (dst16) d16[o + c] = (uint16_t)(v[c] * widen);
                else d8[o + c] = (uint8_t)v[c];
            }
        }
    }
}
