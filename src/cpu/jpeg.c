/* cpu/jpeg.c: JPEG decoding on the CPU with libjpeg-turbo's TurboJPEG API
 * (semantics §13 "Decoder"; the front is core/jpeg.c, the interface cpu/jpeg.h).
 *
 * Output is packed RGB, pixel-identical to Pillow's Image.open(...).convert('RGB')
 * (Pillow uses libjpeg-turbo too): the accurate integer IDCT (ISLOW) and fancy
 * (smooth) upsampling, i.e. TJFLAG_FASTDCT and TJFLAG_FASTUPSAMPLE are never set.
 *
 * - Grayscale: libjpeg-turbo converts to RGB itself (R = G = B = Y).
 * - CMYK / YCCK: TurboJPEG cannot convert these to RGB; we decode to TJPF_CMYK
 *   (libjpeg converts YCCK to CMYK) and convert as Pillow does: Pillow reads
 *   every CMYK JPEG with Adobe's inverted polarity (rawmode "CMYK;I", c = 255 - s
 *   for a stored sample s) and converts with R = nk - nk*c/255 (rounded by
 *   MULDIV255), nk = 255 - k, which in stored samples is
 *   R = s_k - MULDIV255(255 - s_c, s_k).
 * - Warnings (e.g. "Premature end of JPEG file" on a truncated file) stop the
 *   decode and are errors (TJFLAG_STOPONWARNING): a truncated file never comes
 *   back as a half-grey image. TJFLAG_LIMITSCANS refuses progressive files with
 *   more than 500 scans (a known denial-of-service pattern; real files have ~10).
 * - Files whose header TurboJPEG 2.1 refuses but libjpeg accepts (sampling
 *   factors TurboJPEG cannot name, e.g. Y 1x4 / C 1x1) go to the libjpeg-API
 *   fallback in cpu/jpeg_libjpeg.c, which keeps all of the above; so do
 *   multi-scan files and images over AUG__JPEG_POLLED_PIXELS, whose decodes
 *   must stop on Ctrl-C (its progress monitor polls the interrupt check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h> /* JMSG_LENGTH_MAX */
#include <turbojpeg.h>

#include "cpu/jpeg.h"
#include "core/jpeg_markers.h"

struct aug__cpu_jpeg {
    tjhandle tj;
    size_t host_padding;
    uint8_t *scratch; /* CMYK samples before conversion */
    size_t scratch_size;
};

/* ISLOW IDCT (TurboJPEG's default; ACCURATEDCT states it), fancy upsampling
 * (no FASTUPSAMPLE), warnings are errors, bounded progressive scans. */
#define AUG__TJ_FLAGS (TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)

/* Baseline images of more output pixels than this decode through libjpeg's API
 * too (cpu/jpeg_libjpeg.c), whose progress monitor polls the caller's interrupt
 * check between row groups: TurboJPEG has no such hook. 2^22 pixels (2048 x
 * 2048, a photo) decode in 15-50 ms on a busy 2-core machine, the longest a
 * Ctrl-C waits on a TurboJPEG decode; above it libjpeg's own loop costs about
 * as much (the same decoder underneath, ~10% slower measured there). */
#define AUG__JPEG_POLLED_PIXELS ((size_t)1 << 22)

/* After a failed call the decompressor must be replaced: TurboJPEG 2.1's
 * tjDecompressHeader3 does not abort libjpeg's state when the header is cut
 * short, and the next call then resumes the stale marker reader (a valid file
 * failed with "Bogus Huffman table definition" in our tests). The error
 * message is formatted before this runs. Failure to recreate leaves tj NULL;
 * the next call reports it. */
static void reset_handle(aug__cpu_jpeg *j) {
    tjDestroy(j->tj);
    j->tj = tjInitDecompress();
}

static aug_status handle_ok(const char *func, aug__cpu_jpeg *j) {
    if (j->tj != NULL) return AUG_OK;
    j->tj = tjInitDecompress();
    if (j->tj != NULL) return AUG_OK;
    return aug__error(AUG_ERR_MEMORY, func, "cannot create a TurboJPEG decompressor: %s", tjGetErrorStr2(NULL));
}

aug__cpu_jpeg *aug__cpu_jpeg_new(const char *func, size_t host_padding) {
    aug__cpu_jpeg *j = calloc(1, sizeof *j);
    if (j == NULL) {
        AUG__NOMEM(func);
        return NULL;
    }
    j->tj = tjInitDecompress();
    if (j->tj == NULL) {
        /* tjGetErrorStr2(NULL) reads a global string; creation failures are rare (memory). */
        aug__error(AUG_ERR_MEMORY, func, "cannot create a TurboJPEG decompressor: %s", tjGetErrorStr2(NULL));
        free(j);
        return NULL;
    }
    j->host_padding = host_padding;
    return j;
}

void aug__cpu_jpeg_free(aug__cpu_jpeg *j) {
    if (j == NULL) return;
    tjDestroy(j->tj);
    free(j->scratch);
    free(j);
}

/* TurboJPEG takes the size as unsigned long; on LP64 that holds any size_t. */
static aug_status check_size(const char *func, size_t size) {
    if (size == 0) return aug__error(AUG_ERR_JPEG, func, "empty data (0 bytes) is not a JPEG file");
    if ((unsigned long)size != size) return aug__error(AUG_ERR_JPEG, func, "data of %zu bytes is too large", size);
    return AUG_OK;
}

/* When TurboJPEG refuses a header, libjpeg gets a second look: if its header
 * reader accepts the file (TurboJPEG 2.1's "Could not determine subsampling
 * type" for sampling factors it cannot name), the file is decoded with the
 * libjpeg fallback; otherwise TurboJPEG's message is reported. */
static aug_status read_header(const char *func, tjhandle tj, const void *data, size_t size, aug__jpeg_header *h) {
    int w = 0, hh = 0, subsamp = 0, cs = 0;
    int rc = tjDecompressHeader3(tj, (const unsigned char *)data, (unsigned long)size, &w, &hh, &subsamp, &cs);
    if (rc != 0 || subsamp < 0) { /* subsamp < 0 (TJSAMP_UNKNOWN): TurboJPEG 3's report of the same case */
        char msg[JMSG_LENGTH_MAX];
        snprintf(msg, sizeof msg, "%s", rc != 0 ? tjGetErrorStr2(tj) : "Could not determine subsampling type");
        if (aug__libjpeg_header(func, data, size, h) == AUG_OK) return AUG_OK;
        return aug__error(AUG_ERR_JPEG, func, "%s", msg);
    }
    if (w <= 0 || hh <= 0) return aug__error(AUG_ERR_JPEG, func, "invalid image size %dx%d", w, hh);
    h->libjpeg = 0;
    h->width = w;
    h->height = hh;
    switch (cs) {
    case TJCS_GRAY: h->components = 1; break;
    case TJCS_CMYK:
    case TJCS_YCCK: h->components = 4; break;
    default: h->components = 3; break; /* TJCS_YCbCr, TJCS_RGB */
    }
    return AUG_OK;
}

aug_status aug__cpu_jpeg_header(const char *func, aug__cpu_jpeg *j, const void *data, size_t size,
                                aug__jpeg_header *h) {
    aug_status st = check_size(func, size);
    if (st != AUG_OK) return st;
    if (j != NULL) {
        if ((st = handle_ok(func, j)) != AUG_OK) return st;
        /* A fallback header means TurboJPEG failed on it: replace it too. */
        if ((st = read_header(func, j->tj, data, size, h)) != AUG_OK || h->libjpeg) reset_handle(j);
        return st;
    }
    tjhandle tj = tjInitDecompress();
    if (tj == NULL)
        return aug__error(AUG_ERR_MEMORY, func, "cannot create a TurboJPEG decompressor: %s", tjGetErrorStr2(NULL));
    st = read_header(func, tj, data, size, h);
    tjDestroy(tj);
    return st;
}

/* Pillow's MULDIV255(a, b): a*b/255 rounded, exact for a, b in 0..255. */
static inline unsigned muldiv255(unsigned a, unsigned b) {
    unsigned t = a * b + 128;
    return ((t >> 8) + t) >> 8;
}

/* Stored (Adobe-inverted) CMYK samples -> RGB as Pillow's "CMYK;I" + convert('RGB'). */
void aug__cpu_cmyk_to_rgb(const uint8_t *src, uint8_t *dst, size_t npixels) {
    for (size_t i = 0; i < npixels; i++, src += 4, dst += 3) {
        unsigned sk = src[3];
        dst[0] = (uint8_t)(sk - muldiv255(255u - src[0], sk));
        dst[1] = (uint8_t)(sk - muldiv255(255u - src[1], sk));
        dst[2] = (uint8_t)(sk - muldiv255(255u - src[2], sk));
    }
}

static aug_status decode_failed(const char *func, aug__cpu_jpeg *j) {
    aug_status st = aug__error(AUG_ERR_JPEG, func, "%s", tjGetErrorStr2(j->tj));
    reset_handle(j);
    return st;
}

aug_status aug__cpu_jpeg_decode(const char *func, aug__cpu_jpeg *j, const void *data, size_t size,
                                const aug__jpeg_header *h, uint8_t *dst) {
    aug_status st = check_size(func, size);
    if (st != AUG_OK) return st;
    /* progressive and arithmetic multi-scan files too, and large images: libjpeg's
     * progress monitor polls the interrupt check over their many passes or rows
     * (same pixels as TurboJPEG: the same settings; tests/c/test_jpeg_paths.c) */
    size_t npix = (size_t)h->width * (size_t)h->height;
    if (h->libjpeg || npix > AUG__JPEG_POLLED_PIXELS || AUG__JPEG_MULTISCAN(aug__jpeg_frame(data, size)))
        return aug__libjpeg_decode(func, data, size, h, dst);
    if ((st = handle_ok(func, j)) != AUG_OK) return st;
    int w = (int)h->width, hh = (int)h->height; /* < 2^16 each (JPEG), checked by the front */
    const unsigned char *buf = (const unsigned char *)data;
    if (h->components != 4) {
        if (tjDecompress2(j->tj, buf, (unsigned long)size, dst, w, w * 3, hh, TJPF_RGB, AUG__TJ_FLAGS) != 0)
            return decode_failed(func, j);
        return AUG_OK;
    }
    size_t need = npix * 4;
    if (j->scratch_size < need) {
        /* host_padding: the decoder's growth hint, so a run of slightly larger
         * CMYK images does not reallocate every time. */
        size_t grow = need + j->host_padding < need ? need : need + j->host_padding;
        uint8_t *p = malloc(grow);
        if (p == NULL && grow != need) p = malloc(grow = need);
        if (p == NULL) return AUG__NOMEM(func);
        free(j->scratch);
        j->scratch = p;
        j->scratch_size = grow;
    }
    if (tjDecompress2(j->tj, buf, (unsigned long)size, j->scratch, w, w * 4, hh, TJPF_CMYK, AUG__TJ_FLAGS) != 0)
        return decode_failed(func, j);
    aug__cpu_cmyk_to_rgb(j->scratch, dst, npix);
    return AUG_OK;
}

/* ---- backend-table entries --------------------------------------------------------- */

aug_status aug__cpu_jpeg_open(const char *func, int device_id, size_t device_padding, size_t host_padding,
                              int gpu_huffman, void **decoder) {
    (void)device_id, (void)device_padding, (void)gpu_huffman; /* one host; no GPU Huffman decoding */
    *decoder = aug__cpu_jpeg_new(func, host_padding);
    return *decoder ? AUG_OK : aug_last_status();
}

void aug__cpu_jpeg_close(void *decoder) { aug__cpu_jpeg_free(decoder); }

aug_status aug__cpu_jpeg_header_entry(const char *func, void *decoder, const void *data, size_t size,
                                      aug__jpeg_header *h) {
    return aug__cpu_jpeg_header(func, decoder, data, size, h);
}

aug_status aug__cpu_jpeg_decode_entry(const char *func, void *decoder, const void *data, size_t size,
                                      const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec) {
    (void)exec; /* decodes synchronously on the calling thread */
    return aug__cpu_jpeg_decode(func, decoder, data, size, h, dst);
}
