/* cpu/jpeg_libjpeg.c: the libjpeg-API fallback of the CPU JPEG decoder
 * (semantics §13 "Decoder"; the TurboJPEG path and the dispatch are in cpu/jpeg.c).
 *
 * TurboJPEG 2.1 refuses files whose chroma sampling factors are not one of its
 * named subsampling modes ("Could not determine subsampling type for JPEG
 * image": e.g. Y 1x4 / C 1x1, Y 2x2 with Cb 2x1, Cb and Cr factors that differ)
 * although libjpeg itself decodes them; Pillow does. Such files are decoded here
 * through libjpeg's own API with the settings Pillow uses (the library defaults):
 * accurate integer IDCT (JDCT_ISLOW), fancy upsampling, no block smoothing
 * effects on complete files, output JCS_RGB (gray and YCbCr/RGB) or JCS_CMYK
 * (CMYK/YCCK, converted to RGB as the TurboJPEG path does).
 *
 * Policy identical to the TurboJPEG path: warnings are errors (the error
 * manager turns both into a longjmp carrying libjpeg's formatted message), and
 * progressive files with more than 500 scans are refused (TurboJPEG's
 * LIMITSCANS, same limit and message). Every allocation after setjmp comes
 * from libjpeg's pools, which jpeg_destroy_decompress frees on both paths, so
 * the longjmp path cannot leak. */
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t */
#include <string.h>
#include <jpeglib.h>

#include "cpu/jpeg.h"
#include "cpu/pool.h"

/* TurboJPEG's LIMITSCANS threshold (turbojpeg.c), kept equal so both paths
 * refuse the same files. */
#define AUG__MAX_SCANS 500

typedef struct {
    struct jpeg_error_mgr pub;
    struct jpeg_progress_mgr progress;
    jmp_buf env;
    int interrupted; /* the caller's interrupt check asked to stop (aug_set_interrupt_check) */
    char msg[JMSG_LENGTH_MAX];
} aug__jerr;

static void on_error(j_common_ptr c) {
    aug__jerr *e = (aug__jerr *)c->err;
    (*c->err->format_message)(c, e->msg);
    longjmp(e->env, 1);
}

/* msg_level < 0 is a warning (corrupt data libjpeg would patch over): an
 * error here. Levels >= 0 are trace messages: ignored. */
static void on_message(j_common_ptr c, int msg_level) {
    if (msg_level < 0) on_error(c);
}

/* libjpeg calls this per iMCU row read and per row group written: the scan
 * limit, and the thread's interrupt check (every 10 ms at most), so a long
 * progressive decode stops soon after Ctrl-C. */
static void on_progress(j_common_ptr c) {
    aug__jerr *e = (aug__jerr *)c->err;
    if (aug__interrupt_poll()) {
        e->interrupted = 1;
        longjmp(e->env, 1);
    }
    if (!c->is_decompressor || ((j_decompress_ptr)c)->input_scan_number <= AUG__MAX_SCANS) return;
    snprintf(e->msg, sizeof e->msg, "Progressive JPEG image has more than %d scans", AUG__MAX_SCANS);
    longjmp(e->env, 1);
}

/* The error of a decode that jumped back: libjpeg's message, or the interrupt. */
static aug_status jumped(const char *func, const aug__jerr *e) {
    if (e->interrupted && aug__interrupt_take())
        return aug__error(AUG_ERR_INTERRUPTED, func, "interrupted; nothing is returned");
    return aug__error(AUG_ERR_JPEG, func, "%s", e->msg);
}

static void setup(struct jpeg_decompress_struct *c, aug__jerr *e) {
    c->err = jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error;
    e->pub.emit_message = on_message;
    e->msg[0] = '\0';
    e->interrupted = 0;
    memset(&e->progress, 0, sizeof e->progress);
    e->progress.progress_monitor = on_progress;
}

/* Components of the colour spaces we convert to RGB; 0 for the others
 * (JCS_UNKNOWN: 2 or 5+ components, which Pillow does not read either). */
static int components_of(J_COLOR_SPACE cs) {
    switch (cs) {
    case JCS_GRAYSCALE: return 1;
    case JCS_YCbCr:
    case JCS_RGB: return 3;
    case JCS_CMYK:
    case JCS_YCCK: return 4;
    default: return 0;
    }
}

aug_status aug__libjpeg_header(const char *func, const void *data, size_t size, aug__jpeg_header *h) {
    struct jpeg_decompress_struct c;
    aug__jerr e;
    setup(&c, &e);
    if (setjmp(e.env)) {
        jpeg_destroy_decompress(&c);
        return jumped(func, &e);
    }
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&c, TRUE);
    int nc = components_of(c.jpeg_color_space), ncomp = c.num_components;
    int64_t w = c.image_width, hh = c.image_height;
    jpeg_destroy_decompress(&c);
    if (nc == 0) return aug__error(AUG_ERR_JPEG, func, "unsupported JPEG colour space (%d components)", ncomp);
    if (w <= 0 || hh <= 0) return aug__error(AUG_ERR_JPEG, func, "invalid image size %lldx%lld", (long long)w, (long long)hh);
    h->width = w;
    h->height = hh;
    h->components = nc;
    h->libjpeg = 1;
    return AUG_OK;
}

/* After setup and the caller's setjmp: reads the header of data into c, checks it
 * against h (0, or -1 when it differs) and sets the decode parameters every
 * libjpeg decode here shares (ISLOW, fancy upsampling, RGB or CMYK out). libjpeg's
 * errors jump back to the caller's setjmp. */
static int open_checked(struct jpeg_decompress_struct *c, aug__jerr *e, const void *data, size_t size,
                        const aug__jpeg_header *h) {
    jpeg_create_decompress(c);
    c->progress = &e->progress;
    jpeg_mem_src(c, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(c, TRUE);
    if ((int64_t)c->image_width != h->width || (int64_t)c->image_height != h->height ||
        components_of(c->jpeg_color_space) != h->components)
        return -1;
    c->dct_method = JDCT_ISLOW;
    c->do_fancy_upsampling = TRUE;
    c->out_color_space = h->components == 4 ? JCS_CMYK : JCS_RGB;
    return 0;
}

/* Rows per jpeg_read_scanlines call when decoding straight into dst: libjpeg
 * returns at most rec_outbuf_height (<= 4 with fancy upsampling) at a time. */
#define AUG__ROWS 16

aug_status aug__libjpeg_decode(const char *func, const void *data, size_t size, const aug__jpeg_header *h,
                               uint8_t *dst) {
    struct jpeg_decompress_struct c;
    aug__jerr e;
    setup(&c, &e);
    if (setjmp(e.env)) {
        jpeg_destroy_decompress(&c);
        return jumped(func, &e);
    }
    if (open_checked(&c, &e, data, size, h) != 0) {
        jpeg_destroy_decompress(&c);
        return aug__error(AUG_ERR_JPEG, func, "the JPEG header changed between the header read and the decode");
    }
    int cmyk = h->components == 4;
    jpeg_start_decompress(&c);
    size_t w = c.output_width, pitch = w * 3;
    if (!cmyk) {
        while (c.output_scanline < c.output_height) {
            JSAMPROW rows[AUG__ROWS];
            JDIMENSION y = c.output_scanline, n = c.output_height - y;
            if (n > AUG__ROWS) n = AUG__ROWS;
            for (JDIMENSION i = 0; i < n; i++) rows[i] = dst + (size_t)(y + i) * pitch;
            if (jpeg_read_scanlines(&c, rows, n) == 0) break; /* cannot happen with a memory source */
        }
    } else {
        /* One CMYK row from libjpeg's image pool (freed by destroy on any path). */
        JSAMPARRAY row = (*c.mem->alloc_sarray)((j_common_ptr)&c, JPOOL_IMAGE, (JDIMENSION)(w * 4), 1);
        while (c.output_scanline < c.output_height) {
            JDIMENSION y = c.output_scanline;
            if (jpeg_read_scanlines(&c, row, 1) == 0) break;
            aug__cpu_cmyk_to_rgb(row[0], dst + (size_t)y * pitch, w);
        }
    }
    int complete = c.output_scanline == c.output_height;
    if (complete) jpeg_finish_decompress(&c); /* reads to EOI: trailing corruption warns, i.e. fails */
    jpeg_destroy_decompress(&c);
    if (!complete) return aug__error(AUG_ERR_JPEG, func, "libjpeg returned no rows (incomplete data)");
    return AUG_OK;
}

/* ---- the header's description (aug_jpeg_describe) ---------------------------------- */

static const char *colour_space_name(J_COLOR_SPACE cs) {
    switch (cs) {
    case JCS_GRAYSCALE: return "Grayscale";
    case JCS_YCbCr: return "YCbCr";
    case JCS_RGB: return "RGB";
    case JCS_CMYK: return "CMYK";
    case JCS_YCCK: return "YCCK";
    default: return NULL;
    }
}

/* The usual J:a:b name when the chroma components are 1x1 (and a 4th
 * component, if any, samples like Y); else the factors spelled out. */
static void sampling_name(const struct jpeg_decompress_struct *c, char *out, size_t n) {
    static const struct {
        int h, v;
        const char *name;
    } named[] = {{1, 1, "4:4:4"}, {2, 1, "4:2:2"}, {2, 2, "4:2:0"}, {1, 2, "4:4:0"}, {4, 1, "4:1:1"}, {4, 2, "4:1:0"}};
    const jpeg_component_info *ci = c->comp_info;
    if (c->num_components == 1) {
        snprintf(out, n, "4:0:0");
        return;
    }
    int chroma_1x1 = c->num_components >= 3 && ci[1].h_samp_factor == 1 && ci[1].v_samp_factor == 1 &&
                     ci[2].h_samp_factor == 1 && ci[2].v_samp_factor == 1 &&
                     (c->num_components == 3 ||
                      (ci[3].h_samp_factor == ci[0].h_samp_factor && ci[3].v_samp_factor == ci[0].v_samp_factor));
    if (chroma_1x1)
        for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
            if (ci[0].h_samp_factor == named[i].h && ci[0].v_samp_factor == named[i].v) {
                snprintf(out, n, "%s", named[i].name);
                return;
            }
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < c->num_components && used < n; k++) {
        int r = snprintf(out + used, n - used, "%s%dx%d", k ? "," : "", ci[k].h_samp_factor, ci[k].v_samp_factor);
        if (r < 0) break;
        used += (size_t)r;
    }
}

aug_status aug__libjpeg_describe(const char *func, const void *data, size_t size, aug_jpeg_desc *desc) {
    struct jpeg_decompress_struct c;
    aug__jerr e;
    setup(&c, &e);
    if (setjmp(e.env)) {
        jpeg_destroy_decompress(&c);
        return jumped(func, &e);
    }
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&c, TRUE);
    aug_jpeg_desc d;
    memset(&d, 0, sizeof d);
    d.height = c.image_height;
    d.width = c.image_width;
    d.channels = 3;
    d.components = components_of(c.jpeg_color_space);
    d.colour_space = colour_space_name(c.jpeg_color_space);
    d.progressive = c.progressive_mode ? 1 : 0;
    sampling_name(&c, d.sampling, sizeof d.sampling);
    int ncomp = c.num_components;
    jpeg_destroy_decompress(&c);
    if (d.components == 0 || d.colour_space == NULL)
        return aug__error(AUG_ERR_JPEG, func, "unsupported JPEG colour space (%d components)", ncomp);
    if (d.width <= 0 || d.height <= 0)
        return aug__error(AUG_ERR_JPEG, func, "invalid image size %lldx%lld", (long long)d.width,
                          (long long)d.height);
    *desc = d;
    return AUG_OK;
}

/* ---- region and scaled decodes (aug_decoder_decode_region) ------------------------- */

aug_status aug__libjpeg_decode_region(const char *func, const void *data, size_t size, const aug__jpeg_header *h,
                                      aug__jpeg_region *r, uint8_t *dst) {
    struct jpeg_decompress_struct c;
    aug__jerr e;
    setup(&c, &e);
    if (setjmp(e.env)) {
        jpeg_destroy_decompress(&c);
        return jumped(func, &e);
    }
    if (open_checked(&c, &e, data, size, h) != 0) {
        jpeg_destroy_decompress(&c);
        return aug__error(AUG_ERR_JPEG, func, "the JPEG header changed between the header read and the decode");
    }
    int cmyk = h->components == 4, gray = r->gray && h->components == 1 && r->pitch == 0;
    if (gray) c.out_color_space = JCS_GRAYSCALE;
    c.scale_num = (unsigned)r->scale_m;
    c.scale_denom = 8;
    jpeg_start_decompress(&c);
    /* The front checked the region against ceil(H * M / 8) x ceil(W * M / 8). */
    if ((int64_t)c.output_width < r->x + r->w || (int64_t)c.output_height < r->y + r->h) {
        jpeg_destroy_decompress(&c);
        return aug__error(AUG_ERR_JPEG, func, "libjpeg's scaled size %ux%u does not hold the region",
                          (unsigned)c.output_width, (unsigned)c.output_height);
    }
    size_t skip = 0; /* columns of the widened band left of the region */
    if (r->x != 0 || r->w != (int64_t)c.output_width) {
        /* Fancy upsampling replicates the band's edge chroma into its first and
         * last columns, where the full decode uses the neighbouring samples: ask
         * for two more columns on each side (within the image) so the region's
         * own columns see their true neighbours and equal the full decode's
         * (one was not enough for a 1-column 4:2:0 region at x = 0 in the tests;
         * tests/python/test_jpeg_roi.py checks every alignment). */
        int64_t x0 = r->x > 2 ? r->x - 2 : 0, x1 = r->x + r->w + 2;
        if (x1 > (int64_t)c.output_width) x1 = c.output_width;
        JDIMENSION xoff = (JDIMENSION)x0, cw = (JDIMENSION)(x1 - x0);
        jpeg_crop_scanline(&c, &xoff, &cw); /* xoff moves left to an iMCU boundary, cw grows to match */
        skip = (size_t)r->x - xoff;
    }
    if (r->y > 0) {
        JDIMENSION want = (JDIMENSION)r->y;
        if (jpeg_skip_scanlines(&c, want) != want) {
            jpeg_destroy_decompress(&c);
            return aug__error(AUG_ERR_JPEG, func, "libjpeg skipped too few rows (incomplete data)");
        }
    }
    size_t bpp = cmyk ? 4 : gray ? 1 : 3, w = (size_t)r->w, oc = gray ? 1 : 3, pitch = w * oc;
    int band = r->pitch > 0; /* libjpeg writes the band's rows into dst itself */
    if (band && (cmyk || (int64_t)c.output_width * 3 > r->pitch)) {
        jpeg_destroy_decompress(&c);
        return aug__error(AUG_ERR_JPEG, func, "a band of %u columns does not fit the pitch of %lld bytes",
                          (unsigned)c.output_width, (long long)r->pitch);
    }
    r->skip = (int64_t)skip;
    /* Up to rec_outbuf_height rows of the widened band per call (libjpeg's own
     * batch: one row at a time costs fancy upsampling a spare-row copy), from
     * libjpeg's image pool (freed by destroy on any path); with a pitch, row
     * pointers into dst. */
    JDIMENSION batch = c.rec_outbuf_height > 0 ? (JDIMENSION)c.rec_outbuf_height : 1;
    JSAMPARRAY rows =
        band ? (JSAMPARRAY)(*c.mem->alloc_small)((j_common_ptr)&c, JPOOL_IMAGE, batch * sizeof(JSAMPROW))
             : (*c.mem->alloc_sarray)((j_common_ptr)&c, JPOOL_IMAGE, (JDIMENSION)(c.output_width * bpp), batch);
    int64_t got = 0;
    while (got < r->h) {
        JDIMENSION want = (JDIMENSION)(r->h - got < (int64_t)batch ? r->h - got : (int64_t)batch);
        if (band)
            for (JDIMENSION i = 0; i < want; i++) rows[i] = dst + (size_t)(got + (int64_t)i) * (size_t)r->pitch;
        JDIMENSION n = jpeg_read_scanlines(&c, rows, want);
        if (n == 0) break; /* cannot happen with a memory source */
        if (band) {
            got += n;
            continue;
        }
        for (JDIMENSION i = 0; i < n; i++, got++) {
            uint8_t *d = dst + (size_t)got * pitch;
            if (cmyk)
                aug__cpu_cmyk_to_rgb(rows[i] + skip * 4, d, w);
            else
                memcpy(d, rows[i] + skip * oc, pitch);
        }
    }
    /* The whole image was read: finish (reads to EOI, as the full decode).
     * Otherwise the rows below the region are not decoded. */
    if (got == r->h && c.output_scanline == c.output_height) jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
    if (got != r->h) return aug__error(AUG_ERR_JPEG, func, "libjpeg returned no rows (incomplete data)");
    return AUG_OK;
}
