/* core/blur_pil.c: the box of PIL's GaussianBlur(radius) (semantics §13): Pillow's
 * _gaussian_blur_radius (the extended box radius whose 3 passes have the variance
 * radius^2) and its fixed-point weights, in float32 arithmetic as Pillow's C
 * (the build's -ffp-contract=off keeps every product rounded). */
#include <math.h>
#include "blur.h"

aug__pilbox aug__pil_box(float radius) {
    aug__pilbox b = {0, 0, 0, 1};
    const float sigma2 = radius * radius / 3.0f;
    const float big_l = (float)sqrt(12.0 * (double)sigma2 + 1.0);
    const float l = (float)floor(((double)big_l - 1.0) / 2.0);
    float a = (2.0f * l + 1.0f) * (l * (l + 1.0f) - 3.0f * sigma2);
    a = a / (6.0f * (sigma2 - (l + 1.0f) * (l + 1.0f)));
    const float box = l + a;
    if (radius == 0.0f || box == 0.0f) return b; /* Pillow copies */
    b.copy = 0;
    b.r = (int64_t)box;
    b.ww = (uint32_t)((float)(1 << 24) / (box * 2.0f + 1.0f));
    b.fw = (uint32_t)(((uint32_t)1 << 24) - (uint32_t)(b.r * 2 + 1) * b.ww) / 2u;
    return b;
}
