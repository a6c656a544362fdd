/* th_avif.c: AVIF test files from libavif's encoder (th_avif.h). */
#include "helpers/th_avif.h"

#include <avif/avif.h>
#include <stdlib.h>
#include <string.h>

/* The samples of channel c at the plane's depth (8-bit planes hold bytes). */
static void fill_plane(uint8_t *plane, uint32_t row_bytes, int depth, const uint16_t *px, int h, int w,
                       int channels, int c) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint16_t v = px[((size_t)y * (size_t)w + (size_t)x) * (size_t)channels + (size_t)c];
            if (depth == 8) plane[(size_t)y * row_bytes + (size_t)x] = (uint8_t)v;
            else ((uint16_t *)(plane + (size_t)y * row_bytes))[x] = v;
        }
}

uint8_t *th_avif_encode(const uint16_t *px, int h, int w, int channels, int depth, int lossless, size_t *size) {
    int gray = channels <= 2, alpha = channels == 2 || channels == 4;
    avifImage *im = avifImageCreate((uint32_t)w, (uint32_t)h, (uint32_t)depth,
                                    gray ? AVIF_PIXEL_FORMAT_YUV400
                                         : lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
    if (im == NULL) return NULL;
    im->yuvRange = AVIF_RANGE_FULL;
    im->matrixCoefficients = lossless && !gray ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601;
    avifResult r = AVIF_RESULT_OK;
    if (gray) {
        r = avifImageAllocatePlanes(im, alpha ? AVIF_PLANES_ALL : AVIF_PLANES_YUV);
        if (r == AVIF_RESULT_OK) fill_plane(im->yuvPlanes[AVIF_CHAN_Y], im->yuvRowBytes[AVIF_CHAN_Y], depth, px, h, w,
                                            channels, 0);
        if (r == AVIF_RESULT_OK && alpha) fill_plane(im->alphaPlane, im->alphaRowBytes, depth, px, h, w, channels, 1);
    } else {
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, im);
        rgb.format = alpha ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
        rgb.depth = (uint32_t)depth;
        rgb.rowBytes = (uint32_t)(w * channels * (depth > 8 ? 2 : 1));
        rgb.pixels = malloc((size_t)rgb.rowBytes * (size_t)h);
        if (rgb.pixels == NULL) r = AVIF_RESULT_OUT_OF_MEMORY;
        for (int i = 0; r == AVIF_RESULT_OK && i < h * w * channels; i++)
            if (depth > 8) ((uint16_t *)rgb.pixels)[i] = px[i];
            else rgb.pixels[i] = (uint8_t)px[i];
        if (r == AVIF_RESULT_OK) r = avifImageRGBToYUV(im, &rgb);
        free(rgb.pixels);
    }
    uint8_t *out = NULL;
    avifEncoder *enc = r == AVIF_RESULT_OK ? avifEncoderCreate() : NULL;
    if (enc != NULL) {
        int q = lossless ? AVIF_QUANTIZER_LOSSLESS : 30;
        enc->speed = 10;
        enc->minQuantizer = enc->maxQuantizer = q;
        enc->minQuantizerAlpha = enc->maxQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
        avifRWData data = AVIF_DATA_EMPTY;
        if (avifEncoderWrite(enc, im, &data) == AVIF_RESULT_OK && (out = malloc(data.size)) != NULL) {
            memcpy(out, data.data, data.size);
            *size = data.size;
        }
        avifRWDataFree(&data);
        avifEncoderDestroy(enc);
    }
    avifImageDestroy(im);
    return out;
}
