/* core/jpeg.c: the public JPEG decoder (aug_decoder_*, aug_jpeg_info; semantics §13).
 *
 * Backend-neutral front: argument and device checks, the image size limit,
 * output allocation and the `buffer` rules; the pixels come from the decoder of
 * the device's backend (the jpeg_* entries of core/backend.h; CPU:
 * src/cpu/jpeg.c, CUDA: nvJPEG in src/cuda/jpeg.cu). Headers are always read
 * on the host, with the CPU backend's reader. Output: (H, W, 3) uint8 RGB with
 * layout "HWC". With a buffer the decode goes straight into the buffer's memory
 * (no copy); on error the buffer's bytes are unspecified and nothing is returned.
 *
 * A decoder for a device whose backend has no JPEG entries (the emulated CUDA
 * module, or nvJPEG not installed), or whose decoder refuses a file
 * (AUG__JPEG_REFUSED: CMYK, sampling nvJPEG lacks), decodes on the CPU into a
 * page-locked staging buffer and copies the pixels to the device, queued on the
 * current stream. Two staging buffers are used in turn, each reused once the copy
 * out of it has finished (an event, queried before any wait): the next image's
 * host decode overlaps the previous image's upload. When the upload from two
 * images back is still queued (the stream is busy), an image of at most
 * AUG__STAGED_UPLOAD_MAX bytes is decoded into pageable memory instead and
 * uploaded with a blocking copy, which the CUDA backend stages through its
 * page-locked ring without a host wait; only a larger image waits for the
 * staging buffer. A failed CPU decode copies nothing, so the device memory is
 * untouched.
 * A whole-image decode reaches the device's decoder only when the file's marker
 * structure runs to its EOI (core/jpeg_markers.c): nvJPEG decodes a truncated
 * file without an error, where libjpeg-turbo reports "Premature end of JPEG file".
 *
 * PNG files (magic bytes) are decoded whole on the host with libspng
 * (codec/png.c) into the decoder's scratch memory, then cut and converted to
 * the output mode; modes other than RGB convert a JPEG's RGB decode the same
 * way (aug_decoder_decode_as). Both then reach the device like the fallback.
 * WebP (codec/webp.c) and TIFF (codec/tiff.c) files decode on the host the same
 * way (aug_decoder_decode_ex), a TIFF region straight from the strips or tiles
 * it touches; AVIF (codec/avif.c) decodes whole the same way. A uint16 output (dtype) widens 8-bit pixels by 257 in the same
 * conversions (codec/convert.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aug/image.h"
#include "aug/device.h"
#include "backend.h"
#include "codec/avif.h"
#include "codec/convert.h"
#include "codec/png.h"
#include "codec/tiff.h"
#include "codec/webp.h"
#include "jpeg_markers.h"
#include "tensor_impl.h"

/* Largest limit a decoder accepts, in pixels: 2^31 keeps every row pitch and
 * pixel count inside TurboJPEG's int arithmetic with room to spare (6 GiB of
 * RGB). The default limit is 2^28 pixels (768 MiB of RGB, e.g. 16384 x 16384):
 * a 3 MB file can claim that much, so larger images must be asked for
 * (aug_decoder_set_limit). */
#define MAX_PIXELS_HARD ((int64_t)1 << 31)
#define MAX_PIXELS_DEFAULT ((int64_t)1 << 28)
/* A progressive (or arithmetic multi-scan) file is read once per scan over the
 * whole image: its cost is about scans x pixels. The default budget, 2^32
 * scan-pixels, lets a usual 10-scan file of 16384 x 16384 through (2.7e9) and
 * refuses one of 500 scans above 2900 x 2900 (at 16384^2 such a file took 61 s). */
#define MAX_SCAN_PIXELS_DEFAULT ((int64_t)1 << 32)

struct aug_decoder {
    aug_device device;
    const aug__backend *backend; /* the device's */
    void *impl;                  /* the backend's decoder; NULL: decode on the CPU and upload */
    void *cpu;                   /* a non-CPU device: the CPU decoder of the fallback */
    size_t host_padding;
    int64_t max_pixels;          /* images with more pixels are refused */
    int64_t max_scan_pixels;     /* multi-scan files with more scans x pixels are refused */
    uint8_t *staging[2];         /* the fallback's page-locked pixels, used in turn */
    size_t staging_size[2];
    aug_event *copied[2];        /* recorded after the last upload from staging[i] */
    int next;                    /* the staging buffer of the next upload */
    uint8_t *scratch;            /* host memory of PNG decodes and mode conversions */
    size_t scratch_size;
    uint8_t *spill;              /* pageable pixels while both staging buffers are still queued */
    size_t spill_size;
};

aug_decoder *aug_decoder_new(aug_device device, size_t device_padding, size_t host_padding, int gpu_huffman) {
    static const char func[] = "aug_decoder_new";
    const aug__backend *be = aug__backend_for(func, device);
    if (be == NULL) return NULL;
    aug_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        AUG__NOMEM(func);
        return NULL;
    }
    d->device = device;
    d->backend = be;
    d->host_padding = host_padding;
    d->max_pixels = MAX_PIXELS_DEFAULT;
    d->max_scan_pixels = MAX_SCAN_PIXELS_DEFAULT;
    aug_status st = AUG_OK;
    if (device.type == AUG_DEVICE_CPU) {
        st = be->jpeg_new(func, device.id, device_padding, host_padding, gpu_huffman != 0, &d->impl);
    } else {
        /* the device's own decoder when it has one; the CPU's for headers and the fallback */
        if (be->jpeg_new && be->jpeg_decode &&
            be->jpeg_new(func, device.id, device_padding, host_padding, gpu_huffman != 0, &d->impl) != AUG_OK) {
            d->impl = NULL; /* e.g. nvJPEG is not installed: the fallback serves */
            aug_clear_error();
        }
        st = aug__cpu_backend.jpeg_new(func, 0, 0, host_padding, 0, &d->cpu);
        for (int i = 0; i < 2 && st == AUG_OK; i++)
            if ((d->copied[i] = aug_event_new(device)) == NULL) st = aug_last_status();
    }
    if (st != AUG_OK) {
        aug_decoder_free(d);
        return NULL;
    }
    return d;
}

void aug_decoder_free(aug_decoder *d) {
    if (d == NULL) return;
    if (d->impl) d->backend->jpeg_free(d->impl);
    if (d->cpu) aug__cpu_backend.jpeg_free(d->cpu);
    for (int i = 0; i < 2; i++) {
        /* a queued upload may still read the buffer (the page-locked cache also waits for it) */
        if (d->copied[i]) aug_event_synchronize(d->copied[i]);
        aug_event_free(d->copied[i]);
        if (d->staging[i]) aug_host_free(d->device, d->staging[i]);
    }
    free(d->scratch);
    free(d->spill);
    free(d);
}

const char *aug_decoder_engine(const aug_decoder *d) {
    if (d == NULL) return NULL;
    if (d->device.type == AUG_DEVICE_CPU) return "libjpeg-turbo";
    return d->impl ? "nvjpeg" : "libjpeg-turbo+upload";
}

const char *aug_decoder_jpeg_backend(const aug_decoder *d) {
    if (d == NULL) return NULL;
    if (!d->impl) return aug_decoder_engine(d);
    const char *b = d->backend->jpeg_backend ? d->backend->jpeg_backend(d->impl) : NULL;
    return b ? b : "nvjpeg";
}

/* The data of every entry (decode, info, describe): bytes that start no JPEG
 * (FF D8), PNG, WebP, TIFF or AVIF (their signatures) are refused here, naming their
 * first bytes ("not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 3c 68 74 6d 6c 3e 0a 3c)":
 * an HTML error page saved as .jpg), so every entry and engine says the same;
 * a file of a known format that is cut short or corrupt gets its decoder's reason. */
#define KNOWN_FORMATS "JPEG, PNG, WebP, TIFF or AVIF"

static aug_status check_data(const char *func, const void *data, size_t size) {
    if (data == NULL && size > 0) return aug__error(AUG_ERR_VALUE, func, "data is NULL (size %zu)", size);
    if (size == 0) return aug__error(AUG_ERR_JPEG, func, "not a " KNOWN_FORMATS " file (empty)");
    const unsigned char *p = data;
    if ((size >= 2 && p[0] == 0xff && p[1] == 0xd8) || aug_image_format_of(data, size) != AUG_FORMAT_UNKNOWN)
        return AUG_OK;
    char hex[8 * 3] = ""; /* "xx" and seven " xx" */
    size_t n = size < 8 ? size : 8, k = 0;
    for (size_t i = 0; i < n; i++) k += (size_t)snprintf(hex + k, sizeof hex - k, i ? " %02x" : "%02x", p[i]);
    return aug__error(AUG_ERR_JPEG, func, "not a " KNOWN_FORMATS " file (starts with %s)", hex);
}

aug_status aug_decoder_set_limit(aug_decoder *d, int64_t max_pixels) {
    static const char func[] = "aug_decoder_set_limit";
    if (d == NULL) return aug__error(AUG_ERR_VALUE, func, "decoder is NULL");
    if (max_pixels < 1 || max_pixels > MAX_PIXELS_HARD)
        return aug__error(AUG_ERR_VALUE, func, "max_pixels must be in [1, 2^31], got %lld", (long long)max_pixels);
    d->max_pixels = max_pixels;
    return AUG_OK;
}

int64_t aug_decoder_limit(const aug_decoder *d) { return d ? d->max_pixels : 0; }

aug_status aug_decoder_set_scan_limit(aug_decoder *d, int64_t max_scan_pixels) {
    static const char func[] = "aug_decoder_set_scan_limit";
    if (d == NULL) return aug__error(AUG_ERR_VALUE, func, "decoder is NULL");
    if (max_scan_pixels < 1)
        return aug__error(AUG_ERR_VALUE, func, "max_scan_pixels must be >= 1, got %lld", (long long)max_scan_pixels);
    d->max_scan_pixels = max_scan_pixels;
    return AUG_OK;
}

int64_t aug_decoder_scan_limit(const aug_decoder *d) { return d ? d->max_scan_pixels : 0; }


/* Before anything is allocated for the image. */
static aug_status check_limit(const char *func, const aug_decoder *d, int64_t height, int64_t width) {
    if (height * width > d->max_pixels)
        return aug__error(AUG_ERR_JPEG, func,
                          "image of %lld x %lld = %lld pixels is larger than the decoder's limit of %lld pixels "
                          "(raise it with aug_decoder_set_limit / Decoder(max_pixels=...), at most 2^31)",
                          (long long)height, (long long)width, (long long)(height * width),
                          (long long)d->max_pixels);
    return AUG_OK;
}

aug_status aug_jpeg_info(const void *data, size_t size, int64_t *height, int64_t *width) {
    static const char func[] = "aug_jpeg_info";
    if (height == NULL || width == NULL) return aug__error(AUG_ERR_VALUE, func, "height or width pointer is NULL");
    aug_status st = check_data(func, data, size);
    if (st != AUG_OK) return st;
    aug__jpeg_header h;
    st = aug__cpu_backend.jpeg_header(func, NULL, data, size, &h);
    if (st != AUG_OK) return st;
    *height = h.height;
    *width = h.width;
    return AUG_OK;
}

aug_status aug_jpeg_describe(const void *data, size_t size, aug_jpeg_desc *desc) {
    static const char func[] = "aug_jpeg_describe";
    if (desc == NULL) return aug__error(AUG_ERR_VALUE, func, "desc is NULL");
    aug_status st = check_data(func, data, size);
    if (st != AUG_OK) return st;
    if ((unsigned long)size != size) return aug__error(AUG_ERR_JPEG, func, "data of %zu bytes is too large", size);
    return aug__cpu_backend.jpeg_describe(func, data, size, desc);
}

/* The (H, W, C) view of buffer's memory after checking the buffer rules. */
static aug_status buffer_view(const char *func, const aug_decoder *d, const aug_tensor *buffer,
                              const int64_t shape[3], aug_dtype dtype, aug_tensor **view) {
    aug_status st = aug__tensor_check(func, buffer);
    if (st != AUG_OK) return st;
    char want[32], got[32];
    if (!aug__device_eq(buffer->device, d->device))
        return aug__error(AUG_ERR_VALUE, func, "buffer is on %s, the decoder on %s",
                          aug__device_str(buffer->device, got, sizeof got),
                          aug__device_str(d->device, want, sizeof want));
    if (buffer->dtype != dtype)
        return aug__error(AUG_ERR_TYPE, func, "buffer must be %s, not %s", aug_dtype_name(dtype),
                          aug_dtype_name(buffer->dtype));
    if (buffer->storage == NULL || !aug_tensor_is_contiguous(buffer))
        return aug__error(AUG_ERR_VALUE, func, "buffer must be a contiguous tensor");
    int64_t need = shape[0] * shape[1] * shape[2], have = aug_tensor_size(buffer);
    if (have < need)
        return aug__error(AUG_ERR_VALUE, func,
                          "buffer of %lld elements is too small for the %lld x %lld x %lld image (%lld elements)",
                          (long long)have, (long long)shape[0], (long long)shape[1], (long long)shape[2],
                          (long long)need);
    int64_t strides[3] = {shape[1] * shape[2], shape[2], 1};
    aug_tensor *v = aug_tensor_from_storage(buffer->storage, buffer->byte_offset, 3, shape, strides, dtype);
    if (v == NULL) return aug_last_status() != AUG_OK ? aug_last_status() : AUG__NOMEM(func);
    *view = v;
    return AUG_OK;
}

/* Decodes on the CPU to host memory: the whole image, or region r (non-NULL). */
static aug_status cpu_decode(const char *func, aug_decoder *d, const void *data, size_t size,
                             const aug__jpeg_header *h, aug__jpeg_region *r, uint8_t *dst,
                             const aug__exec *exec) {
    /* A CPU decoder goes through its device's table; a CUDA decoder's fallback through the CPU's. */
    const aug__backend *be = d->device.type == AUG_DEVICE_CPU ? d->backend : &aug__cpu_backend;
    if (r == NULL) return be->jpeg_decode(func, d->cpu ? d->cpu : d->impl, data, size, h, dst, exec);
    if (be->jpeg_decode_region == NULL) return aug__error(AUG_ERR_JPEG, func, "no region decoder on this backend");
    return be->jpeg_decode_region(func, data, size, h, r, dst);
}

/* Host pixels for dst: fill() writes n bytes to host memory; on the CPU that
 * is dst itself, on a device staging memory whose copy to dst is then queued. */
typedef aug_status (*host_fill)(const char *func, aug_decoder *d, const void *ctx, uint8_t *host);

static aug_status deliver(const char *func, aug_decoder *d, size_t n, host_fill fill, const void *ctx, uint8_t *dst,
                          const aug__exec *exec) {
    if (d->device.type == AUG_DEVICE_CPU) return fill(func, d, ctx, dst);
    const int i = d->next;
    aug_status st = AUG_OK;
    int done = aug_event_query(d->copied[i]); /* the upload from two images back has read it */
    if (done < 0) return aug_last_status();
    if (!done && n <= AUG__STAGED_UPLOAD_MAX) { /* still queued: through the backend's staging, no wait */
        if (d->spill_size < n) {
            free(d->spill);
            d->spill_size = 0;
            size_t want = n + d->host_padding < n ? n : n + d->host_padding;
            if ((d->spill = (uint8_t *)malloc(want)) == NULL) return AUG__NOMEM(func);
            d->spill_size = want;
        }
        st = fill(func, d, ctx, d->spill);
        if (st == AUG_OK) /* blocking: the spill is free again on return; the slot stays next */
            st = d->backend->memcpy(dst, d->device, d->spill, aug_cpu_device(), n, exec->stream_handle, 1);
        return st;
    }
    if (!done && (st = aug_event_synchronize(d->copied[i])) != AUG_OK) return st;
    if (d->staging_size[i] < n) {
        aug_host_free(d->device, d->staging[i]);
        d->staging[i] = NULL;
        d->staging_size[i] = 0;
        size_t want = n + d->host_padding < n ? n : n + d->host_padding;
        if ((d->staging[i] = aug_host_alloc(d->device, want)) == NULL) return aug_last_status();
        d->staging_size[i] = want;
    }
    st = fill(func, d, ctx, d->staging[i]);
    if (st == AUG_OK)
        st = d->backend->memcpy(dst, d->device, d->staging[i], aug_cpu_device(), n, exec->stream_handle, 0);
    if (st == AUG_OK) st = aug_event_record(d->copied[i], exec->stream);
    if (st == AUG_OK) d->next = 1 - i;
    return st;
}

/* What a host fill decodes and how its pixels are converted. */
typedef struct fill_job {
    const void *data;
    size_t size;
    const aug__jpeg_header *h;   /* JPEG */
    aug__jpeg_region *r;         /* JPEG: NULL for the whole image */
    const aug_png_desc *png;     /* PNG */
    int64_t y, x, oh, ow;        /* the output region (PNG, WebP, TIFF: of the whole image) */
    int channels;                /* of the output; JPEG: 3 decodes straight to host */
    const aug__exec *exec;
    int dst16;                   /* a uint16 output */
    const aug_image_desc *img;   /* WebP, TIFF, AVIF */
    int page;                    /* TIFF */
    int64_t max_pixels;          /* TIFF: the largest tile; AVIF: libavif's size limit */
    int gray;                    /* JPEG: a grayscale file's own samples (mode unchanged), 1 channel */
} fill_job;

/* scratch of at least n bytes (host_padding added when it grows). */
static aug_status grow_scratch(const char *func, aug_decoder *d, size_t n) {
    if (d->scratch_size >= n) return AUG_OK;
    free(d->scratch);
    d->scratch_size = 0;
    size_t want = n + d->host_padding < n ? n : n + d->host_padding;
    if ((d->scratch = malloc(want)) == NULL) return AUG__NOMEM(func);
    d->scratch_size = want;
    return AUG_OK;
}

/* A decode's scratch is kept for the next one up to this size (plus host_padding);
 * larger scratch (a CMYK JPEG converted to another mode, an Adam7 PNG) is freed
 * when the decode ends, so a long-lived decoder holds no more after one big file. */
#define SCRATCH_KEEP ((size_t)16 << 20)

static aug_status trim_scratch(aug_decoder *d, aug_status st) {
    if (d->scratch_size > SCRATCH_KEEP + d->host_padding) {
        free(d->scratch);
        d->scratch = NULL;
        d->scratch_size = 0;
    }
    return st;
}

static aug_status fill_jpeg(const char *func, aug_decoder *d, const void *ctx, uint8_t *host) {
    const fill_job *j = ctx;
    if (j->channels == 3 && !j->dst16) return cpu_decode(func, d, j->data, j->size, j->h, j->r, host, j->exec);
    if (j->gray && !j->dst16) { /* libjpeg's grayscale output: the samples an RGB decode repeats */
        aug__jpeg_region g = {8, 0, 0, j->oh, j->ow, 0, 0, 1};
        if (j->r != NULL) g = *j->r, g.pitch = 0, g.gray = 1;
        return cpu_decode(func, d, j->data, j->size, j->h, &g, host, j->exec);
    }
    aug_status st = grow_scratch(func, d, (size_t)(j->oh * j->ow * 3));
    if (st == AUG_OK) st = cpu_decode(func, d, j->data, j->size, j->h, j->r, d->scratch, j->exec);
    if (st == AUG_OK) aug__convert_image(d->scratch, 3, 0, j->ow, 0, 0, j->oh, j->ow, host, j->channels, j->dst16);
    return trim_scratch(d, st);
}

/* A PNG: row by row into the output, one RGBA row of scratch; an Adam7 file
 * whole into scratch (4 or 8 bytes per pixel), then cut and converted. */
static aug_status fill_png(const char *func, aug_decoder *d, const void *ctx, uint8_t *host) {
    const fill_job *j = ctx;
    size_t pb = aug__png_pixel_bytes(j->png), row = (size_t)j->png->width * pb;
    if (!j->png->interlaced) {
        aug_status st = grow_scratch(func, d, row);
        if (st == AUG_OK)
            st = aug__png_decode_region(func, j->data, j->size, j->png, j->y, j->x, j->oh, j->ow, d->scratch, host,
                                        j->channels, j->dst16);
        return trim_scratch(d, st);
    }
    aug_status st = grow_scratch(func, d, row * (size_t)j->png->height);
    if (st == AUG_OK) st = aug__png_decode_rgba(func, j->data, j->size, j->png, d->scratch);
    if (st == AUG_OK)
        aug__convert_image(d->scratch, 4, pb == 8, j->png->width, j->y, j->x, j->oh, j->ow, host, j->channels,
                           j->dst16);
    return trim_scratch(d, st);
}

/* A WebP: whole, straight into the output when it is the whole image in RGB or
 * RGBA bytes, else into scratch (RGB, or RGBA for a file with alpha) and then
 * cut and converted. */
static aug_status fill_webp(const char *func, aug_decoder *d, const void *ctx, uint8_t *host) {
    const fill_job *j = ctx;
    const aug_image_desc *g = j->img;
    if (!j->dst16 && j->oh == g->height && j->ow == g->width && j->channels >= 3)
        return aug__webp_decode(func, j->data, j->size, g, j->channels, host);
    int c = g->alpha ? 4 : 3;
    aug_status st = grow_scratch(func, d, (size_t)(g->height * g->width * c));
    if (st == AUG_OK) st = aug__webp_decode(func, j->data, j->size, g, c, d->scratch);
    if (st == AUG_OK)
        aug__convert_image(d->scratch, c, 0, g->width, j->y, j->x, j->oh, j->ow, host, j->channels, j->dst16);
    return trim_scratch(d, st);
}

/* An AVIF: whole, straight into the output when it is the whole image in the
 * file's RGB or RGBA at the output's depth, else into scratch (RGB, or RGBA for
 * a file with alpha: libavif 0.11 premultiplies the colour of such a file
 * decoded to RGB; 16-bit for a 10/12-bit file's uint16 output, 8-bit samples
 * otherwise, widened by the conversion) and then cut and converted. */
static aug_status fill_avif(const char *func, aug_decoder *d, const void *ctx, uint8_t *host) {
    const fill_job *j = ctx;
    const aug_image_desc *g = j->img;
    int c = g->alpha ? 4 : 3, src16 = j->dst16 && g->bit_depth > 8;
    if (j->oh == g->height && j->ow == g->width && j->channels == c && src16 == j->dst16)
        return aug__avif_decode(func, j->data, j->size, g, j->max_pixels, c, src16, host);
    aug_status st = grow_scratch(func, d, (size_t)(g->height * g->width * c) << src16);
    if (st == AUG_OK) st = aug__avif_decode(func, j->data, j->size, g, j->max_pixels, c, src16, d->scratch);
    if (st == AUG_OK)
        aug__convert_image(d->scratch, c, src16, g->width, j->y, j->x, j->oh, j->ow, host, j->channels, j->dst16);
    return trim_scratch(d, st);
}

/* A TIFF region: the strips or tiles it touches, straight into the output when
 * its samples are the output's, else into scratch and then converted. */
static aug_status fill_tiff(const char *func, aug_decoder *d, const void *ctx, uint8_t *host) {
    const fill_job *j = ctx;
    const aug_image_desc *g = j->img;
    int src16 = g->bit_depth == 16;
    if (j->channels == g->channels && src16 == j->dst16)
        return aug__tiff_decode(func, j->data, j->size, j->page, g, j->max_pixels, j->y, j->x, j->oh, j->ow, host);
    aug_status st = grow_scratch(func, d, (size_t)(j->oh * j->ow * g->channels) << src16);
    if (st == AUG_OK)
        st = aug__tiff_decode(func, j->data, j->size, j->page, g, j->max_pixels, j->y, j->x, j->oh, j->ow,
                              d->scratch);
    if (st == AUG_OK)
        aug__convert_image(d->scratch, g->channels, src16, j->ow, 0, 0, j->oh, j->ow, host, j->channels, j->dst16);
    return trim_scratch(d, st);
}

/* A progressive or arithmetic multi-scan file keeps the whole image's
 * coefficients (2 bytes per sample of every component) and reads the data once
 * per scan, whatever the roi or scale: the whole image is held to max_pixels and
 * scans x pixels to max_scan_pixels (the CPU backend decodes such files through
 * libjpeg's API, whose progress monitor polls the caller's interrupt check). */
static aug_status check_multiscan(const char *func, const aug_decoder *d, const void *data, size_t size,
                                  const aug__jpeg_header *h) {
    if (!AUG__JPEG_MULTISCAN(aug__jpeg_frame(data, size))) return AUG_OK;
    aug_status st = check_limit(func, d, h->height, h->width);
    if (st != AUG_OK) return st;
    int64_t scans = aug__jpeg_walk_markers(data, size).scans, pixels = h->height * h->width;
    if (scans > d->max_scan_pixels / pixels)
        return aug__error(AUG_ERR_JPEG, func,
                          "progressive JPEG of %lld scans x %lld pixels = %lld scan-pixels is over the decoder's "
                          "limit of %lld (raise it with aug_decoder_set_scan_limit / Decoder(max_scan_pixels=...))",
                          (long long)scans, (long long)pixels, (long long)(scans * pixels),
                          (long long)d->max_scan_pixels);
    return AUG_OK;
}

/* The scale as libjpeg's M/8 (M in 1..16), or 0. */
static int scale_eighths(int num, int denom) {
    if (num <= 0 || denom <= 0 || ((int64_t)num * 8) % denom != 0) return 0;
    int64_t m = (int64_t)num * 8 / denom;
    return m >= 1 && m <= 16 ? (int)m : 0;
}

/* The output tensor (new, or a view of buffer) of shape (oh, ow, c). */
static aug_status make_output(const char *func, const aug_decoder *d, const aug_tensor *buffer, int64_t oh,
                              int64_t ow, int c, aug_dtype dtype, aug_tensor **t) {
    int64_t shape[3] = {oh, ow, c};
    if (buffer != NULL) return buffer_view(func, d, buffer, shape, dtype, t);
    if ((*t = aug__tensor_empty(func, 3, shape, dtype, d->device)) == NULL) return aug_last_status();
    return AUG_OK;
}

static aug_status roi_error(const char *func, const int64_t *roi, const char *what, int64_t sh, int64_t sw) {
    return aug__error(AUG_ERR_VALUE, func,
                      "roi (y=%lld, x=%lld, h=%lld, w=%lld) is not inside the %s image of %lld x %lld "
                      "(y, x >= 0, h, w >= 1, y + h <= %lld, x + w <= %lld)",
                      (long long)roi[0], (long long)roi[1], (long long)roi[2], (long long)roi[3], what,
                      (long long)sh, (long long)sw, (long long)sh, (long long)sw);
}

static int roi_outside(const int64_t *roi, int64_t sh, int64_t sw) {
    return roi[0] < 0 || roi[1] < 0 || roi[2] < 1 || roi[3] < 1 || roi[2] > sh - roi[0] || roi[3] > sw - roi[1];
}

/* Output channels of mode for a file whose own channel count is own. */
static int mode_channels(aug_decode_mode mode, int own) {
    static const int n[] = {3, 1, 2, 4};
    return mode == AUG_DECODE_UNCHANGED ? own : n[mode];
}

static aug_status finish(aug_status st, aug_tensor *t, aug_tensor **out) {
    if (st == AUG_OK) st = aug_tensor_set_layout(t, "HWC");
    if (st != AUG_OK) {
        aug_tensor_free(t);
        return st;
    }
    *out = t;
    return AUG_OK;
}

static aug_status decode_png(const char *func, aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                             int scale_m, aug_decode_mode mode, aug_dtype dtype, const aug_tensor *buffer,
                             aug_tensor **out) {
    if (scale_m != 8)
        return aug__error(AUG_ERR_VALUE, func,
                          "scale %d/8 is for JPEG files: a PNG decodes at scale 1 (DCT scaling is JPEG's)", scale_m);
    aug_png_desc desc;
    aug_status st = aug__png_describe(func, data, size, &desc);
    if (st != AUG_OK) return st;
    if ((st = check_limit(func, d, desc.height, desc.width)) != AUG_OK) return st;
    fill_job j = {data, size, NULL, NULL, &desc, 0, 0, desc.height, desc.width, mode_channels(mode, desc.channels),
                  NULL, dtype == AUG_UINT16, NULL, 0, 0, 0};
    if (roi != NULL) {
        if (roi_outside(roi, desc.height, desc.width)) return roi_error(func, roi, "decoded", desc.height, desc.width);
        j.y = roi[0], j.x = roi[1], j.oh = roi[2], j.ow = roi[3];
    }
    aug_tensor *t = NULL;
    if ((st = make_output(func, d, buffer, j.oh, j.ow, j.channels, dtype, &t)) != AUG_OK) return st;
    aug__exec exec = aug__exec_for(d->device);
    j.exec = &exec;
    st = deliver(func, d, (size_t)(j.oh * j.ow * j.channels) << j.dst16, fill_png, &j, (uint8_t *)aug_tensor_ptr(t),
                 &exec);
    return finish(st, t, out);
}

/* The description of a WebP, TIFF or AVIF file (page: TIFF's). */
static aug_status describe_other(const char *func, aug_image_format f, const void *data, size_t size, int page,
                                 aug_image_desc *desc) {
    if (f == AUG_FORMAT_WEBP) return aug__webp_describe(func, data, size, desc);
    if (f == AUG_FORMAT_AVIF) return aug__avif_describe(func, data, size, desc);
    return aug__tiff_describe(func, data, size, page, desc);
}

/* A WebP, TIFF or AVIF file, decoded on the host (a device gets it uploaded). */
static aug_status decode_other(const char *func, aug_decoder *d, aug_image_format f, const void *data, size_t size,
                               const int64_t *roi, int scale_m, aug_decode_mode mode, aug_dtype dtype, int page,
                               const aug_tensor *buffer, aug_tensor **out) {
    const char *name = f == AUG_FORMAT_WEBP ? "WebP" : f == AUG_FORMAT_AVIF ? "AVIF" : "TIFF";
    if (scale_m != 8)
        return aug__error(AUG_ERR_VALUE, func,
                          "scale %d/8 is for JPEG files: a %s decodes at scale 1 (DCT scaling is JPEG's)", scale_m,
                          name);
    aug_image_desc desc;
    aug_status st = describe_other(func, f, data, size, page, &desc);
    if (st != AUG_OK) return st;
    if ((st = check_limit(func, d, desc.height, desc.width)) != AUG_OK) return st;
    fill_job j = {data, size, NULL, NULL, NULL, 0, 0, desc.height, desc.width, mode_channels(mode, desc.channels),
                  NULL, dtype == AUG_UINT16, &desc, page, d->max_pixels, 0};
    if (roi != NULL) {
        if (roi_outside(roi, desc.height, desc.width)) return roi_error(func, roi, "decoded", desc.height, desc.width);
        j.y = roi[0], j.x = roi[1], j.oh = roi[2], j.ow = roi[3];
    }
    aug_tensor *t = NULL;
    if ((st = make_output(func, d, buffer, j.oh, j.ow, j.channels, dtype, &t)) != AUG_OK) return st;
    aug__exec exec = aug__exec_for(d->device);
    j.exec = &exec;
    aug_status (*fill)(const char *, aug_decoder *, const void *, uint8_t *) =
        f == AUG_FORMAT_WEBP ? fill_webp : f == AUG_FORMAT_AVIF ? fill_avif : fill_tiff;
    st = deliver(func, d, (size_t)(j.oh * j.ow * j.channels) << j.dst16, fill, &j, (uint8_t *)aug_tensor_ptr(t), &exec);
    return finish(st, t, out);
}

/* Columns a libjpeg band can add to a region: two on each side for the
 * upsampling, and the left edge moved to an iMCU boundary (an iMCU is at most
 * 4 samples of 16 scaled pixels wide). */
#define BAND_MARGIN 68

/* The region r of a CPU decoder's RGB JPEG decoded as libjpeg's band, written
 * straight to the output (no row copies), *out a (h, w, 3) view of it with row
 * pitch (w + BAND_MARGIN) * 3 (buffer: its memory, when it holds that; else
 * AUG__JPEG_REFUSED and the caller decodes compactly). */
static aug_status decode_band(const char *func, aug_decoder *d, const void *data, size_t size,
                              const aug__jpeg_header *h, aug__jpeg_region *r, const aug_tensor *buffer,
                              aug_tensor **out) {
    int64_t bw = r->w + BAND_MARGIN, shape[3] = {r->h, bw, 3};
    aug_tensor *band = NULL;
    aug_status st;
    if (buffer != NULL) {
        if (aug__tensor_check(func, buffer) != AUG_OK || buffer->dtype != AUG_UINT8 || buffer->storage == NULL ||
            !aug_tensor_is_contiguous(buffer) || aug_tensor_size(buffer) < r->h * bw * 3)
            return AUG__JPEG_REFUSED;
        if ((st = buffer_view(func, d, buffer, shape, AUG_UINT8, &band)) != AUG_OK) return st;
    } else if ((band = aug__tensor_empty(func, 3, shape, AUG_UINT8, d->device)) == NULL) {
        return aug_last_status();
    }
    r->pitch = bw * 3;
    st = cpu_decode(func, d, data, size, h, r, (uint8_t *)aug_tensor_ptr(band), NULL);
    aug_tensor *v = NULL;
    if (st == AUG_OK) {
        int64_t vshape[3] = {r->h, r->w, 3}, strides[3] = {bw * 3, 3, 1};
        v = aug_tensor_from_storage(band->storage, band->byte_offset + r->skip * 3, 3, vshape, strides, AUG_UINT8);
        if (v == NULL) st = aug_last_status() != AUG_OK ? aug_last_status() : AUG__NOMEM(func);
    }
    aug_tensor_free(band);
    r->pitch = 0;
    if (st != AUG_OK) return st;
    return finish(st, v, out);
}

/* Both decodes: r NULL decodes the whole image with the device's decoder; view
 * lets a region decode on the CPU return a strided view (decode_band). */
static aug_status decode(const char *func, aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                         int scale_num, int scale_denom, int region, aug_decode_mode mode, aug_dtype dtype, int page,
                         int view, const aug_tensor *buffer, aug_tensor **out) {
    if (d == NULL) return aug__error(AUG_ERR_VALUE, func, "decoder is NULL");
    if (out == NULL) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if ((int)mode < (int)AUG_DECODE_RGB || (int)mode > (int)AUG_DECODE_UNCHANGED)
        return aug__error(AUG_ERR_VALUE, func, "mode %d is not an aug_decode_mode (0..4)", (int)mode);
    if (dtype != AUG_UINT8 && dtype != AUG_UINT16)
        return aug__error(AUG_ERR_TYPE, func, "dtype %s is not supported (uint8 or uint16)",
                          aug_dtype_name(dtype) ? aug_dtype_name(dtype) : "(invalid)");
    if (page < 0) return aug__error(AUG_ERR_VALUE, func, "page must be >= 0, got %d", page);
    aug__jpeg_region reg = {8, 0, 0, 0, 0, 0, 0, 0}, *r = NULL;
    if (region) {
        if ((reg.scale_m = scale_eighths(scale_num, scale_denom)) == 0)
            return aug__error(AUG_ERR_VALUE, func,
                              "scale %d/%d is not one of libjpeg-turbo's factors M/8, M in 1..16 "
                              "(1/8, 1/4, 3/8, 1/2, 5/8, 3/4, 7/8, 1, 9/8, ..., 2)",
                              scale_num, scale_denom);
        if (roi != NULL || reg.scale_m != 8) r = &reg;
    }
    aug_status st = check_data(func, data, size);
    if (st != AUG_OK) return st;
    aug_image_format fmt = aug_image_format_of(data, size);
    if (page != 0 && fmt != AUG_FORMAT_TIFF)
        return aug__error(AUG_ERR_VALUE, func, "page %d is for TIFF files: a %s file has one image (page 0)", page,
                          fmt == AUG_FORMAT_UNKNOWN ? "JPEG" : aug_image_format_name(fmt));
    if (fmt == AUG_FORMAT_PNG) return decode_png(func, d, data, size, roi, reg.scale_m, mode, dtype, buffer, out);
    if (fmt == AUG_FORMAT_WEBP || fmt == AUG_FORMAT_TIFF || fmt == AUG_FORMAT_AVIF)
        return decode_other(func, d, fmt, data, size, roi, reg.scale_m, mode, dtype, page, buffer, out);
    int dst16 = dtype == AUG_UINT16;
    aug__jpeg_header h;
    st = aug__cpu_backend.jpeg_header(func, d->cpu ? d->cpu : d->impl, data, size, &h);
    if (st != AUG_OK) return st;
    int64_t oh = h.height, ow = h.width;
    if (r != NULL) {
        /* libjpeg's output size: jdiv_round_up(size * M, 8) */
        int64_t sh = (h.height * reg.scale_m + 7) / 8, sw = (h.width * reg.scale_m + 7) / 8;
        if (roi == NULL) {
            reg.h = sh, reg.w = sw;
        } else {
            if (roi_outside(roi, sh, sw)) return roi_error(func, roi, reg.scale_m == 8 ? "decoded" : "scaled", sh, sw);
            reg.y = roi[0], reg.x = roi[1], reg.h = roi[2], reg.w = roi[3];
        }
        oh = reg.h, ow = reg.w;
    }
    if ((st = check_limit(func, d, oh, ow)) != AUG_OK || (st = check_multiscan(func, d, data, size, &h)) != AUG_OK)
        return st;
    int channels = mode_channels(mode, h.components == 1 ? 1 : 3);
    if (view && r != NULL && channels == 3 && !dst16 && h.components != 4 && d->device.type == AUG_DEVICE_CPU &&
        d->backend->jpeg_decode_region != NULL) {
        st = decode_band(func, d, data, size, &h, r, buffer, out);
        if (st != AUG__JPEG_REFUSED) return st;
    }
    aug_tensor *t = NULL;
    if ((st = make_output(func, d, buffer, oh, ow, channels, dtype, &t)) != AUG_OK) return st;
    aug__exec exec = aug__exec_for(d->device);
    uint8_t *dst = (uint8_t *)aug_tensor_ptr(t);
    fill_job j = {data, size, &h, r, NULL, 0, 0, oh, ow, channels, &exec, dst16, NULL, 0, 0,
                  mode == AUG_DECODE_UNCHANGED && h.components == 1};
    if (channels != 3 || dst16 || d->device.type == AUG_DEVICE_CPU || !d->impl || r != NULL)
        st = deliver(func, d, (size_t)(oh * ow * channels) << dst16, fill_jpeg, &j, dst, &exec);
    else {
        /* nvJPEG decodes a file cut short without an error (grey or stale rows): only complete files reach it */
        st = aug__jpeg_check_complete(func, data, size);
        if (st == AUG_OK) st = d->backend->jpeg_decode(func, d->impl, data, size, &h, dst, &exec);
        if (st == AUG__JPEG_REFUSED) st = deliver(func, d, (size_t)(oh * ow * 3), fill_jpeg, &j, dst, &exec);
    }
    return finish(st, t, out);
}

aug_status aug_decoder_decode(aug_decoder *d, const void *data, size_t size, const aug_tensor *buffer,
                              aug_tensor **out) {
    return decode("aug_decoder_decode", d, data, size, NULL, 1, 1, 0, AUG_DECODE_RGB, AUG_UINT8, 0, 0, buffer, out);
}

/* Whether file i of a batch may go to the device's batched decoder: a whole JPEG
 * whose header reads, within the limits, complete (as decode() checks before
 * jpeg_decode); anything else is left to aug_decoder_decode, which reports it. */
static int batchable(const char *func, aug_decoder *d, const void *data, size_t size, aug__jpeg_header *h) {
    if (data == NULL || aug_image_format_of(data, size) != AUG_FORMAT_JPEG) return 0;
    int ok = aug__cpu_backend.jpeg_header(func, d->cpu, data, size, h) == AUG_OK && h->components != 4 &&
             !h->libjpeg && check_limit(func, d, h->height, h->width) == AUG_OK &&
             check_multiscan(func, d, data, size, h) == AUG_OK && aug__jpeg_check_complete(func, data, size) == AUG_OK;
    if (!ok) aug_clear_error(); /* the single decode says it again */
    return ok;
}

aug_status aug_decoder_decode_batch(aug_decoder *d, int n, const void *const *data, const size_t *size,
                                    aug_tensor **out) {
    static const char func[] = "aug_decoder_decode_batch";
    if (d == NULL) return aug__error(AUG_ERR_VALUE, func, "decoder is NULL");
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "n must be >= 0, got %d", n);
    if (n > 0 && (data == NULL || size == NULL || out == NULL))
        return aug__error(AUG_ERR_VALUE, func, "data, size or out is NULL (n %d)", n);
    for (int i = 0; i < n; i++) out[i] = NULL;
    if (n == 0 || !d->impl || d->backend->jpeg_decode_batch == NULL) return AUG_OK;
    aug__jpeg_header *h = calloc((size_t)n, sizeof *h);
    const void **bd = calloc((size_t)n, sizeof *bd);
    size_t *bs = calloc((size_t)n, sizeof *bs);
    uint8_t **dst = calloc((size_t)n, sizeof *dst);
    int *idx = calloc((size_t)n, sizeof *idx), *done = calloc((size_t)n, sizeof *done);
    aug_tensor **t = calloc((size_t)n, sizeof *t);
    aug_status st = h && bd && bs && dst && idx && done && t ? AUG_OK : AUG__NOMEM(func);
    int k = 0;
    for (int i = 0; i < n && st == AUG_OK; i++) {
        if (!batchable(func, d, data[i], size[i], &h[k])) continue;
        const int64_t shape[3] = {h[k].height, h[k].width, 3};
        if ((t[k] = aug__tensor_empty(func, 3, shape, AUG_UINT8, d->device)) == NULL) {
            st = aug_last_status();
            break;
        }
        bd[k] = data[i], bs[k] = size[i], dst[k] = (uint8_t *)aug_tensor_ptr(t[k]), idx[k] = i;
        k++;
    }
    aug__exec exec = aug__exec_for(d->device);
    if (st == AUG_OK && k > 0) st = d->backend->jpeg_decode_batch(func, d->impl, k, bd, bs, h, dst, done, &exec);
    for (int m = 0; m < k; m++) {
        if (st == AUG_OK && done[m] && aug_tensor_set_layout(t[m], "HWC") == AUG_OK) {
            out[idx[m]] = t[m];
        } else {
            aug_tensor_free(t[m]); /* stream-ordered: a failed batched call's queued writes come first */
        }
    }
    free(h), free(bd), free(bs), free(dst), free(idx), free(done), free(t);
    return st;
}

aug_status aug_decoder_decode_region(aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                                     int scale_num, int scale_denom, const aug_tensor *buffer, aug_tensor **out) {
    return decode("aug_decoder_decode_region", d, data, size, roi, scale_num, scale_denom, 1, AUG_DECODE_RGB, AUG_UINT8,
                  0, 0, buffer, out);
}

aug_status aug_decoder_decode_as(aug_decoder *d, const void *data, size_t size, const int64_t *roi, int scale_num,
                                 int scale_denom, aug_decode_mode mode, const aug_tensor *buffer, aug_tensor **out) {
    return decode("aug_decoder_decode_as", d, data, size, roi, scale_num, scale_denom, 1, mode, AUG_UINT8, 0, 0, buffer,
                  out);
}

aug_status aug_decoder_decode_view(aug_decoder *d, const void *data, size_t size, const int64_t *roi, int scale_num,
                                   int scale_denom, const aug_tensor *buffer, aug_tensor **out) {
    return decode("aug_decoder_decode_view", d, data, size, roi, scale_num, scale_denom, 1, AUG_DECODE_RGB, AUG_UINT8,
                  0, 1, buffer, out);
}

aug_decode_options aug_decode_options_default(void) {
    aug_decode_options o = {NULL, 1, 1, AUG_DECODE_RGB, AUG_UINT8, 0};
    return o;
}

aug_status aug_decoder_decode_ex(aug_decoder *d, const void *data, size_t size, const aug_decode_options *opts,
                                 const aug_tensor *buffer, aug_tensor **out) {
    aug_decode_options o = opts ? *opts : aug_decode_options_default();
    return decode("aug_decoder_decode_ex", d, data, size, o.roi, o.scale_num, o.scale_denom, 1, o.mode, o.dtype,
                  o.page, 0, buffer, out);
}

/* An ISO BMFF file whose first box is 'ftyp' with the brand 'avif' (image) or
 * 'avis' (sequence), major or compatible, within the box and the data (as
 * libavif's avifPeekCompatibleFileType; HEIC and MP4 are not AVIF). */
static int is_avif(const unsigned char *p, size_t size) {
    if (size < 16 || memcmp(p + 4, "ftyp", 4) != 0) return 0;
    size_t box = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3], end = box < size ? box : size;
    if (box < 16) return 0;
    for (size_t k = 8; k + 4 <= end; k += 4) {
        if (k == 12) continue; /* minor_version */
        if (memcmp(p + k, "avif", 4) == 0 || memcmp(p + k, "avis", 4) == 0) return 1;
    }
    return 0;
}

aug_image_format aug_image_format_of(const void *data, size_t size) {
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    const unsigned char *p = data;
    if (p == NULL) return AUG_FORMAT_UNKNOWN;
    if (size >= 8 && memcmp(p, png, 8) == 0) return AUG_FORMAT_PNG;
    if (size >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff) return AUG_FORMAT_JPEG;
    if (size >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) return AUG_FORMAT_WEBP;
    if (size >= 4 && ((p[0] == 'I' && p[1] == 'I' && (p[2] == 42 || p[2] == 43) && p[3] == 0) ||
                      (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && (p[3] == 42 || p[3] == 43))))
        return AUG_FORMAT_TIFF;
    if (is_avif(p, size)) return AUG_FORMAT_AVIF;
    return AUG_FORMAT_UNKNOWN;
}

const char *aug_image_format_name(aug_image_format format) {
    static const char *const names[AUG_FORMAT_COUNT] = {NULL, "jpeg", "png", "webp", "tiff", "avif"};
    return (int)format >= 0 && (int)format < AUG_FORMAT_COUNT ? names[format] : NULL;
}

aug_status aug_image_describe(const void *data, size_t size, int page, aug_image_desc *desc) {
    static const char func[] = "aug_image_describe";
    if (desc == NULL) return aug__error(AUG_ERR_VALUE, func, "desc is NULL");
    aug_status st = check_data(func, data, size);
    if (st != AUG_OK) return st;
    aug_image_format f = aug_image_format_of(data, size);
    if (page < 0 || (page != 0 && f != AUG_FORMAT_TIFF))
        return aug__error(AUG_ERR_VALUE, func, "page %d: only a TIFF file has pages other than 0", page);
    aug_image_desc d;
    memset(&d, 0, sizeof d);
    d.pages = 1;
    if (f == AUG_FORMAT_WEBP || f == AUG_FORMAT_TIFF || f == AUG_FORMAT_AVIF) {
        if ((st = describe_other(func, f, data, size, page, &d)) != AUG_OK) return st;
    } else if (f == AUG_FORMAT_PNG) {
        aug_png_desc p;
        if ((st = aug__png_describe(func, data, size, &p)) != AUG_OK) return st;
        d.format = f, d.height = p.height, d.width = p.width, d.channels = p.channels;
        d.bit_depth = p.bit_depth == 16 ? 16 : 8, d.alpha = p.channels == 2 || p.channels == 4;
        d.colour_space = p.colour_space, d.compression = "deflate";
    } else {
        aug_jpeg_desc j;
        if ((unsigned long)size != size) return aug__error(AUG_ERR_JPEG, func, "data of %zu bytes is too large", size);
        if ((st = aug__cpu_backend.jpeg_describe(func, data, size, &j)) != AUG_OK) return st;
        d.format = AUG_FORMAT_JPEG, d.height = j.height, d.width = j.width, d.channels = j.components == 1 ? 1 : 3;
        d.bit_depth = 8, d.colour_space = j.colour_space, d.compression = "jpeg";
    }
    *desc = d;
    return AUG_OK;
}

aug_status aug_png_describe(const void *data, size_t size, aug_png_desc *desc) {
    static const char func[] = "aug_png_describe";
    if (desc == NULL) return aug__error(AUG_ERR_VALUE, func, "desc is NULL");
    aug_status st = check_data(func, data, size);
    if (st != AUG_OK) return st;
    return aug__png_describe(func, data, size, desc);
}
