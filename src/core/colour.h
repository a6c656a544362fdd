/* core/colour.h: the colour plan handed to the backends (private).
 *
 * The core checks shapes, dtypes and factors, turns the per-image factors and
 * orders into step lists (scalar/colour.h) and allocates the output; the
 * backend runs the steps per pixel with scalar/colour.h's rules (the CPU through
 * 256-entry tables where a step maps each uint8 value on its own). A fused
 * lighting (aug_color_jitter_lighting) runs after the last step: uint8 through
 * per-(image, channel) tables the backend builds with aug__colour_light_table,
 * uint16 and float32 per value (uint16 stored with saturate_cast as
 * aug_lighting stores it). */
#ifndef AUG_CORE_COLOUR_H
#define AUG_CORE_COLOUR_H

#include "backend.h"
#include "scalar/colour.h"
#include "scalar/lighting.h"
#include "scalar/cast.h"

typedef enum aug__colour_kind {
    AUG__COLOUR_JITTER,  /* the steps of img[] per image, in place allowed */
    AUG__COLOUR_GRAY,    /* rgb_to_grayscale: c (1 or 3) -> out_c (1 or 3) channels */
    AUG__COLOUR_TO_HSV,  /* float32 RGB -> HSV */
    AUG__COLOUR_FROM_HSV /* float32 HSV -> RGB */
} aug__colour_kind;

struct aug__colour_plan {
    const char *func;
    aug__colour_kind kind;
    const char *src;              /* the image's first value (backend memory), contiguous NCHW */
    char *dst;                    /* the output's first value; == src or not overlapping it */
    int u8;                       /* the value class: AUG__COLOUR_CLS_U8, _U16 or _F (float32) */
    int64_t n, c, h, w;           /* images, channels (1 or 3), rows, columns */
    int out_c;                    /* AUG__COLOUR_GRAY: output channels */
    const aug__colour_image *img; /* AUG__COLOUR_JITTER: n step lists (host) */
    int any_contrast;             /* some image has a contrast step */
    aug__exec exec;
    /* AUG__COLOUR_JITTER from aug_color_jitter_lighting: scalar/lighting.h's curve
     * after the steps (light_gamma NULL: none). Parameters as float32 values. */
    const double *light_gamma;    /* n * c: gammagrays[i] * gammacolors[i * c + ch] (host) */
    const double *light_contrast; /* n (host) */
    double light_vmin, light_vmax;
};

/* uint8: the fused lighting's table of plane (image, channel) `plane`: every
 * value through aug__lighting_value, stored as aug_lighting's backends store
 * it (saturate_cast), so the bytes are aug_lighting's. Host code. */
static inline void aug__colour_light_table(const aug__colour_plan *p, int64_t plane, uint8_t *t) {
    for (int x = 0; x < 256; x++)
        aug__store_f64(aug__lighting_value((double)x, p->light_vmin, p->light_vmax, p->light_contrast[plane / p->c],
                                           p->light_gamma[plane]),
                       AUG__CT_UINT8, t + x);
}

#endif
