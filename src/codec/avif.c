/* codec/avif.c: AVIF decoding with libavif from memory (codec/avif.h). */
#include "codec/avif.h"

#include <avif/avif.h>
#include <string.h>

static aug_status avif_fail(const char *func, avifResult r, const avifDecoder *dec) {
    const char *diag = dec != NULL ? dec->diag.error : "";
    return aug__error(AUG_ERR_JPEG, func, "AVIF: %s%s%s", avifResultToString(r), diag[0] ? ": " : "", diag);
}

/* A decoder over the bytes (not copied), its header parsed; NULL on error
 * (*st set). size_limit: libavif's image size limit, in pixels. */
static avifDecoder *open_avif(const char *func, const void *data, size_t size, uint32_t size_limit,
                              aug_status *st) {
    avifDecoder *dec = avifDecoderCreate();
    if (dec == NULL) {
        *st = aug__error(AUG_ERR_MEMORY, func, "out of memory (avifDecoderCreate)");
        return NULL;
    }
    dec->maxThreads = 1;
    dec->imageSizeLimit = size_limit;
    dec->imageDimensionLimit = 0; /* the pixel count is the bound (the decoder's max_pixels) */
    dec->ignoreExif = AVIF_TRUE;
    dec->ignoreXMP = AVIF_TRUE;
    avifResult r = avifDecoderSetIOMemory(dec, data, size);
    if (r == AVIF_RESULT_OK) r = avifDecoderParse(dec);
    if (r != AVIF_RESULT_OK) {
        *st = avif_fail(func, r, dec);
        avifDecoderDestroy(dec);
        return NULL;
    }
    return dec;
}

static const char *subsampling_name(avifPixelFormat f) {
    switch (f) {
    case AVIF_PIXEL_FORMAT_YUV444: return "YUV444";
    case AVIF_PIXEL_FORMAT_YUV422: return "YUV422";
    case AVIF_PIXEL_FORMAT_YUV420: return "YUV420";
    case AVIF_PIXEL_FORMAT_YUV400: return "YUV400";
    default: return "unknown";
    }
}

aug_status aug__avif_describe(const char *func, const void *data, size_t size, aug_image_desc *desc) {
    aug_status st = AUG_OK;
    avifDecoder *dec = open_avif(func, data, size, AVIF_DEFAULT_IMAGE_SIZE_LIMIT, &st);
    if (dec == NULL) return st;
    const avifImage *im = dec->image;
    aug_image_desc d;
    memset(&d, 0, sizeof d);
    d.format = AUG_FORMAT_AVIF;
    d.height = im->height, d.width = im->width;
    d.alpha = dec->alphaPresent != 0;
    d.channels = (im->yuvFormat == AVIF_PIXEL_FORMAT_YUV400 ? 1 : 3) + d.alpha;
    d.bit_depth = (int)im->depth;
    d.pages = dec->imageCount > 0 ? dec->imageCount : 1;
    d.animated = dec->imageCount > 1;
    d.colour_space = subsampling_name(im->yuvFormat);
    d.compression = "av1";
    avifDecoderDestroy(dec);
    if (d.height < 1 || d.width < 1 || (d.bit_depth != 8 && d.bit_depth != 10 && d.bit_depth != 12))
        return aug__error(AUG_ERR_JPEG, func, "AVIF: an image of %lld x %lld pixels at %d bits is not decoded",
                          (long long)d.height, (long long)d.width, d.bit_depth);
    *desc = d;
    return AUG_OK;
}

/* n samples of depth bits (10 or 12) at p to 16 bits, round(v * 65535 / (2^depth - 1)), in place. */
static void widen(uint16_t *p, size_t n, int depth) {
    uint32_t max = (1u << depth) - 1u;
    for (size_t k = 0; k < n; k++) p[k] = (uint16_t)((p[k] * 65535u + max / 2u) / max);
}

aug_status aug__avif_decode(const char *func, const void *data, size_t size, const aug_image_desc *desc,
                            int64_t max_pixels, int channels, int wide, void *dst) {
    if (wide && desc->bit_depth <= 8)
        return aug__error(AUG_ERR_VALUE, func, "AVIF: a %d-bit file has no 16-bit decode", desc->bit_depth);
    int depth = wide ? desc->bit_depth : 8;
    uint64_t row = (uint64_t)desc->width * (uint64_t)channels * (depth > 8 ? 2u : 1u);
    if (row > UINT32_MAX)
        return aug__error(AUG_ERR_JPEG, func, "AVIF: a row of %lld pixels is over libavif's 4 GiB row",
                          (long long)desc->width);
    uint32_t limit = max_pixels < (int64_t)AVIF_DEFAULT_IMAGE_SIZE_LIMIT ? (uint32_t)max_pixels
                                                                         : (uint32_t)AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    aug_status st = AUG_OK;
    avifDecoder *dec = open_avif(func, data, size, limit, &st);
    if (dec == NULL) return st;
    avifResult r = avifDecoderNextImage(dec);
    const avifImage *im = dec->image;
    if (r != AVIF_RESULT_OK) {
        st = avif_fail(func, r, dec);
    } else if ((int64_t)im->width != desc->width || (int64_t)im->height != desc->height ||
               (int)im->depth != desc->bit_depth) {
        st = aug__error(AUG_ERR_JPEG, func, "AVIF: decoded %u x %u at %u bits, the header said %lld x %lld at %d",
                        im->height, im->width, im->depth, (long long)desc->height, (long long)desc->width,
                        desc->bit_depth);
    } else {
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, im);
        rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
        rgb.depth = (uint32_t)depth;
        rgb.pixels = dst;
        rgb.rowBytes = (uint32_t)row;
        if ((r = avifImageYUVToRGB(im, &rgb)) != AVIF_RESULT_OK) st = avif_fail(func, r, dec);
        else if (wide) widen(dst, (size_t)desc->height * (size_t)desc->width * (size_t)channels, depth);
    }
    avifDecoderDestroy(dec);
    return st;
}
