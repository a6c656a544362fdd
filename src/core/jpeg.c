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
 * current stream; the staging buffer is reused once that copy has finished (an
 * event). A failed CPU decode copies nothing, so the device memory is untouched. */
#include <stdlib.h>

#include "aug/image.h"
#include "aug/device.h"
#include "backend.h"
#include "tensor_impl.h"

/* Largest limit a decoder accepts, in pixels: 2^31 keeps every row pitch and
 * pixel count inside TurboJPEG's int arithmetic with room to spare (6 GiB of
 * RGB). The default limit is 2^28 pixels (768 MiB of RGB, e.g. 16384 x 16384):
 * a 3 MB file can claim that much, so larger images must be asked for
 * (aug_decoder_set_limit). */
#define MAX_PIXELS_HARD ((int64_t)1 << 31)
#define MAX_PIXELS_DEFAULT ((int64_t)1 << 28)

struct aug_decoder {
    aug_device device;
    const aug__backend *backend; /* the device's */
    void *impl;                  /* the backend's decoder; NULL: decode on the CPU and upload */
    void *cpu;                   /* a non-CPU device: the CPU decoder of the fallback */
    size_t host_padding;
    int64_t max_pixels;          /* images with more pixels are refused */
    uint8_t *staging;            /* the fallback's page-locked pixels */
    size_t staging_size;
    aug_event *copied;           /* recorded after the last upload from staging */
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
        if (st == AUG_OK && (d->copied = aug_event_new(device)) == NULL) st = aug_last_status();
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
    if (d->copied) aug_event_synchronize(d->copied); /* the last upload still reads staging */
    aug_event_free(d->copied);
    if (d->staging) aug_host_free(d->device, d->staging);
    free(d);
}

const char *aug_decoder_engine(const aug_decoder *d) {
    if (d == NULL) return NULL;
    if (d->device.type == AUG_DEVICE_CPU) return "libjpeg-turbo";
    return d->impl ? "nvjpeg" : "libjpeg-turbo+upload";
}

static aug_status check_data(const char *func, const void *data, size_t size) {
    if (data == NULL && size > 0) return aug__error(AUG_ERR_VALUE, func, "data is NULL (size %zu)", size);
    if (size == 0) return aug__error(AUG_ERR_JPEG, func, "empty data (0 bytes) is not a JPEG file");
    return AUG_OK;
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

/* The (H, W, 3) view of buffer's memory after checking the buffer rules. */
static aug_status buffer_view(const char *func, const aug_decoder *d, const aug_tensor *buffer,
                              const int64_t shape[3], aug_tensor **view) {
    aug_status st = aug__tensor_check(func, buffer);
    if (st != AUG_OK) return st;
    char want[32], got[32];
    if (!aug__device_eq(buffer->device, d->device))
        return aug__error(AUG_ERR_VALUE, func, "buffer is on %s, the decoder on %s",
                          aug__device_str(buffer->device, got, sizeof got),
                          aug__device_str(d->device, want, sizeof want));
    if (buffer->dtype != AUG_UINT8)
        return aug__error(AUG_ERR_TYPE, func, "buffer must be uint8, not %s", aug_dtype_name(buffer->dtype));
    if (buffer->storage == NULL || !aug_tensor_is_contiguous(buffer))
        return aug__error(AUG_ERR_VALUE, func, "buffer must be a contiguous tensor");
    int64_t need = shape[0] * shape[1] * shape[2], have = aug_tensor_size(buffer);
    if (have < need)
        return aug__error(AUG_ERR_VALUE, func,
                          "buffer of %lld elements is too small for the %lld x %lld x 3 image (%lld elements)",
                          (long long)have, (long long)shape[0], (long long)shape[1], (long long)need);
    int64_t strides[3] = {shape[1] * 3, 3, 1};
    aug_tensor *v = aug_tensor_from_storage(buffer->storage, buffer->byte_offset, 3, shape, strides, AUG_UINT8);
    if (v == NULL) return aug_last_status() != AUG_OK ? aug_last_status() : AUG__NOMEM(func);
    *view = v;
    return AUG_OK;
}

/* Decodes on the CPU to host memory: the whole image, or region r (non-NULL). */
static aug_status cpu_decode(const char *func, aug_decoder *d, const void *data, size_t size,
                             const aug__jpeg_header *h, const aug__jpeg_region *r, uint8_t *dst,
                             const aug__exec *exec) {
    /* A CPU decoder goes through its device's table; a CUDA decoder's fallback through the CPU's. */
    const aug__backend *be = d->device.type == AUG_DEVICE_CPU ? d->backend : &aug__cpu_backend;
    if (r == NULL) return be->jpeg_decode(func, d->cpu ? d->cpu : d->impl, data, size, h, dst, exec);
    if (be->jpeg_decode_region == NULL) return aug__error(AUG_ERR_JPEG, func, "no region decoder on this backend");
    return be->jpeg_decode_region(func, data, size, h, r, dst);
}

/* The fallback: decode on the CPU into staging, then queue the copy to dst. */
static aug_status decode_upload(const char *func, aug_decoder *d, const void *data, size_t size,
                                const aug__jpeg_header *h, const aug__jpeg_region *r, uint8_t *dst,
                                const aug__exec *exec) {
    size_t n = r ? (size_t)(r->h * r->w * 3) : (size_t)(h->height * h->width * 3);
    aug_status st = aug_event_synchronize(d->copied); /* the previous upload has read staging */
    if (st != AUG_OK) return st;
    if (d->staging_size < n) {
        aug_host_free(d->device, d->staging);
        d->staging_size = 0;
        size_t want = n + d->host_padding < n ? n : n + d->host_padding;
        if ((d->staging = aug_host_alloc(d->device, want)) == NULL) return aug_last_status();
        d->staging_size = want;
    }
    st = cpu_decode(func, d, data, size, h, r, d->staging, exec);
    if (st == AUG_OK) st = d->backend->memcpy(dst, d->device, d->staging, aug_cpu_device(), n, exec->stream_handle, 0);
    if (st == AUG_OK) st = aug_event_record(d->copied, exec->stream);
    return st;
}

/* The scale as libjpeg's M/8 (M in 1..16), or 0. */
static int scale_eighths(int num, int denom) {
    if (num <= 0 || denom <= 0 || ((int64_t)num * 8) % denom != 0) return 0;
    int64_t m = (int64_t)num * 8 / denom;
    return m >= 1 && m <= 16 ? (int)m : 0;
}

/* Both decodes: r NULL decodes the whole image with the device's decoder. */
static aug_status decode(const char *func, aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                         int scale_num, int scale_denom, int region, const aug_tensor *buffer, aug_tensor **out) {
    if (d == NULL) return aug__error(AUG_ERR_VALUE, func, "decoder is NULL");
    if (out == NULL) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug__jpeg_region reg = {8, 0, 0, 0, 0}, *r = NULL;
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
            if (roi[0] < 0 || roi[1] < 0 || roi[2] < 1 || roi[3] < 1 || roi[2] > sh - roi[0] || roi[3] > sw - roi[1])
                return aug__error(AUG_ERR_VALUE, func,
                                  "roi (y=%lld, x=%lld, h=%lld, w=%lld) is not inside the %s image of %lld x %lld "
                                  "(y, x >= 0, h, w >= 1, y + h <= %lld, x + w <= %lld)",
                                  (long long)roi[0], (long long)roi[1], (long long)roi[2], (long long)roi[3],
                                  reg.scale_m == 8 ? "decoded" : "scaled", (long long)sh, (long long)sw,
                                  (long long)sh, (long long)sw);
            reg.y = roi[0], reg.x = roi[1], reg.h = roi[2], reg.w = roi[3];
        }
        oh = reg.h, ow = reg.w;
    }
    if ((st = check_limit(func, d, oh, ow)) != AUG_OK) return st;
    int64_t shape[3] = {oh, ow, 3};
    aug_tensor *t = NULL;
    if (buffer != NULL)
        st = buffer_view(func, d, buffer, shape, &t);
    else if ((t = aug__tensor_empty(func, 3, shape, AUG_UINT8, d->device)) == NULL)
        st = aug_last_status();
    if (st != AUG_OK) return st;
    aug__exec exec = aug__exec_for(d->device);
    uint8_t *dst = (uint8_t *)aug_tensor_ptr(t);
    if (d->device.type == AUG_DEVICE_CPU)
        st = cpu_decode(func, d, data, size, &h, r, dst, &exec);
    else {
        st = d->impl && r == NULL ? d->backend->jpeg_decode(func, d->impl, data, size, &h, dst, &exec)
                                  : AUG__JPEG_REFUSED;
        if (st == AUG__JPEG_REFUSED) st = decode_upload(func, d, data, size, &h, r, dst, &exec);
    }
    if (st == AUG_OK) st = aug_tensor_set_layout(t, "HWC");
    if (st != AUG_OK) {
        aug_tensor_free(t);
        return st;
    }
    *out = t;
    return AUG_OK;
}

aug_status aug_decoder_decode(aug_decoder *d, const void *data, size_t size, const aug_tensor *buffer,
                              aug_tensor **out) {
    return decode("aug_decoder_decode", d, data, size, NULL, 1, 1, 0, buffer, out);
}

aug_status aug_decoder_decode_region(aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                                     int scale_num, int scale_denom, const aug_tensor *buffer, aug_tensor **out) {
    return decode("aug_decoder_decode_region", d, data, size, roi, scale_num, scale_denom, 1, buffer, out);
}
