/* codec/webp.c: WebP decoding with libwebp and libwebpdemux (codec/webp.h). */
#include "codec/webp.h"

#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

#include "codec/convert.h"

static const char *status_name(VP8StatusCode s) {
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory (VP8_STATUS_OUT_OF_MEMORY)";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter (VP8_STATUS_INVALID_PARAM)";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt data (VP8_STATUS_BITSTREAM_ERROR)";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature (VP8_STATUS_UNSUPPORTED_FEATURE)";
    case VP8_STATUS_SUSPENDED: return "suspended (VP8_STATUS_SUSPENDED)";
    case VP8_STATUS_USER_ABORT: return "aborted (VP8_STATUS_USER_ABORT)";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated file (VP8_STATUS_NOT_ENOUGH_DATA)";
    default: return "unknown error";
    }
}

static aug_status webp_fail(const char *func, VP8StatusCode s) {
    return aug__error(AUG_ERR_JPEG, func, "WebP: %s", status_name(s));
}

/* An animation's canvas, frame count and compression (every frame's bitstream). */
static aug_status describe_animation(const char *func, const void *data, size_t size, aug_image_desc *d) {
    WebPData wd = {data, size};
    WebPDemuxer *dmx = WebPDemux(&wd);
    if (dmx == NULL) return aug__error(AUG_ERR_JPEG, func, "WebP: the animation's chunks cannot be read");
    d->width = WebPDemuxGetI(dmx, WEBP_FF_CANVAS_WIDTH);
    d->height = WebPDemuxGetI(dmx, WEBP_FF_CANVAS_HEIGHT);
    d->pages = (int)WebPDemuxGetI(dmx, WEBP_FF_FRAME_COUNT);
    int lossy = 0, lossless = 0;
    WebPIterator it;
    if (WebPDemuxGetFrame(dmx, 1, &it)) {
        do {
            WebPBitstreamFeatures f;
            if (WebPGetFeatures(it.fragment.bytes, it.fragment.size, &f) == VP8_STATUS_OK) {
                lossy |= f.format == 1;
                lossless |= f.format == 2;
            }
        } while (WebPDemuxNextFrame(&it));
        WebPDemuxReleaseIterator(&it);
    }
    WebPDemuxDelete(dmx);
    if (d->pages < 1 || d->width < 1 || d->height < 1)
        return aug__error(AUG_ERR_JPEG, func, "WebP: an animation of %d frames on a %lld x %lld canvas", d->pages,
                          (long long)d->height, (long long)d->width);
    d->compression = lossy && lossless ? "mixed" : lossless ? "lossless" : "lossy";
    return AUG_OK;
}

aug_status aug__webp_describe(const char *func, const void *data, size_t size, aug_image_desc *desc) {
    WebPBitstreamFeatures f;
    VP8StatusCode s = WebPGetFeatures(data, size, &f);
    if (s != VP8_STATUS_OK) return webp_fail(func, s);
    aug_image_desc d;
    memset(&d, 0, sizeof d);
    d.format = AUG_FORMAT_WEBP;
    d.height = f.height, d.width = f.width;
    d.alpha = f.has_alpha != 0;
    d.channels = d.alpha ? 4 : 3;
    d.bit_depth = 8;
    d.pages = 1;
    d.animated = f.has_animation != 0;
    d.colour_space = d.alpha ? "RGBA" : "RGB";
    d.compression = f.format == 2 ? "lossless" : "lossy";
    if (d.animated) {
        aug_status st = describe_animation(func, data, size, &d);
        if (st != AUG_OK) return st;
    }
    *desc = d;
    return AUG_OK;
}

static aug_status decode_first_frame(const char *func, const void *data, size_t size, const aug_image_desc *desc,
                                     int channels, uint8_t *dst) {
    WebPAnimDecoderOptions o;
    if (!WebPAnimDecoderOptionsInit(&o)) return aug__error(AUG_ERR_JPEG, func, "WebP: libwebpdemux version mismatch");
    o.color_mode = MODE_RGBA;
    o.use_threads = 0;
    WebPData wd = {data, size};
    WebPAnimDecoder *ad = WebPAnimDecoderNew(&wd, &o);
    if (ad == NULL) return aug__error(AUG_ERR_JPEG, func, "WebP: the animation cannot be read (corrupt or truncated)");
    WebPAnimInfo info;
    uint8_t *canvas = NULL;
    int ts = 0;
    aug_status st = AUG_OK;
    if (!WebPAnimDecoderGetInfo(ad, &info) || (int64_t)info.canvas_width != desc->width ||
        (int64_t)info.canvas_height != desc->height)
        st = aug__error(AUG_ERR_JPEG, func, "WebP: the animation's canvas is not the described %lld x %lld",
                        (long long)desc->height, (long long)desc->width);
    else if (!WebPAnimDecoderGetNext(ad, &canvas, &ts))
        st = aug__error(AUG_ERR_JPEG, func, "WebP: the first frame cannot be decoded (corrupt or truncated)");
    else
        aug__convert_image(canvas, 4, 0, desc->width, 0, 0, desc->height, desc->width, dst, channels, 0);
    WebPAnimDecoderDelete(ad);
    return st;
}

aug_status aug__webp_decode(const char *func, const void *data, size_t size, const aug_image_desc *desc,
                            int channels, uint8_t *dst) {
    if (desc->animated) return decode_first_frame(func, data, size, desc, channels, dst);
    WebPDecoderConfig cfg;
    if (!WebPInitDecoderConfig(&cfg)) return aug__error(AUG_ERR_JPEG, func, "WebP: libwebp version mismatch");
    size_t stride = (size_t)desc->width * (size_t)channels;
    cfg.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    cfg.output.is_external_memory = 1;
    cfg.output.u.RGBA.rgba = dst;
    cfg.output.u.RGBA.stride = (int)stride;
    cfg.output.u.RGBA.size = stride * (size_t)desc->height;
    VP8StatusCode s = WebPDecode(data, size, &cfg);
    WebPFreeDecBuffer(&cfg.output);
    if (s == VP8_STATUS_OK && (cfg.output.width != desc->width || cfg.output.height != desc->height))
        return aug__error(AUG_ERR_JPEG, func, "WebP: decoded %d x %d, the header said %lld x %lld", cfg.output.height,
                          cfg.output.width, (long long)desc->height, (long long)desc->width);
    return s == VP8_STATUS_OK ? AUG_OK : webp_fail(func, s);
}
