/* codec/tiff.c: TIFF decoding with libtiff from memory (codec/tiff.h). */
#include "codec/tiff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#include "codec/poll.h"

/* libtiff's largest single allocation while reading a header (directories,
 * strip and tile tables: 16 MB of offsets is 2 million strips); a decode's
 * own strip or tile buffer is bounded by the decoder's limit instead. */
#define HEADER_ALLOC_MAX ((tmsize_t)256 << 20)

/* The file in memory, and the first message libtiff reports about it. */
typedef struct {
    const uint8_t *data;
    toff_t size, pos;
    char msg[200];
} mem_file;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n) {
    mem_file *f = (mem_file *)h;
    if (n < 0 || f->pos >= f->size) return 0;
    toff_t left = f->size - f->pos, k = (toff_t)n < left ? (toff_t)n : left;
    memcpy(buf, f->data + f->pos, (size_t)k);
    f->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) {
    (void)h, (void)buf, (void)n;
    return 0;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    mem_file *f = (mem_file *)h;
    toff_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->size : 0;
    if (off > UINT64_MAX - base) return (toff_t)-1;
    f->pos = base + off;
    return f->pos;
}

static int mem_close(thandle_t h) {
    (void)h;
    return 0;
}

static toff_t mem_size(thandle_t h) { return ((mem_file *)h)->size; }

/* libtiff reads strips straight from the caller's bytes (no copy). */
static int mem_map(thandle_t h, void **base, toff_t *size) {
    mem_file *f = (mem_file *)h;
    *base = (void *)(uintptr_t)f->data;
    *size = f->size;
    return 1;
}

static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h, (void)base, (void)size; }

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif, (void)module;
    mem_file *f = (mem_file *)user;
    if (f->msg[0] == '\0') vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    return 1; /* handled: nothing reaches libtiff's global handler (stderr) */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
    return 1; /* unknown tags and the like: not errors, not printed */
}

static aug_status tiff_fail(const char *func, const mem_file *f, const char *what) {
    return aug__error(AUG_ERR_JPEG, func, "TIFF: %s%s%s", what, f->msg[0] ? ": " : "", f->msg);
}

static TIFF *open_tiff(const char *func, mem_file *f, const void *data, size_t size, tmsize_t alloc_max,
                       aug_status *st) {
    memset(f, 0, sizeof *f);
    f->data = data;
    f->size = (toff_t)size;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (o == NULL) {
        *st = aug__error(AUG_ERR_MEMORY, func, "out of memory (libtiff options)");
        return NULL;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, alloc_max);
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, f);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, f);
    TIFF *tif = TIFFClientOpenExt("memory", "r", (thandle_t)f, mem_read, mem_write, mem_seek, mem_close, mem_size,
                                  mem_map, mem_unmap, o);
    TIFFOpenOptionsFree(o);
    if (tif == NULL) *st = tiff_fail(func, f, "the file cannot be read");
    return tif;
}

/* Makes page the current directory: AUG_ERR_VALUE when the file has no such page. */
static aug_status select_page(const char *func, TIFF *tif, const mem_file *f, int page, int *pages) {
    tdir_t n = TIFFNumberOfDirectories(tif);
    /* the first directory was read when the file opened: a chain libtiff cannot
     * walk (a fuzzed next-IFD offset) counts as that one page */
    if (n == 0) n = 1;
    *pages = (int)n;
    if (page < 0 || (tdir_t)page >= n)
        return aug__error(AUG_ERR_VALUE, func, "page %d is not in the TIFF file's %u page%s (0..%u)", page,
                          (unsigned)n, n == 1 ? "" : "s", n ? (unsigned)n - 1 : 0u);
    if (page > 0 && !TIFFSetDirectory(tif, (tdir_t)page)) return tiff_fail(func, f, "the page cannot be read");
    return AUG_OK;
}

static const char *compression_name(unsigned c) {
    switch (c) {
    case COMPRESSION_NONE: return "none";
    case COMPRESSION_LZW: return "lzw";
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return "deflate";
    case COMPRESSION_PACKBITS: return "packbits";
    case COMPRESSION_JPEG:
    case COMPRESSION_OJPEG: return "jpeg";
    case COMPRESSION_ZSTD: return "zstd";
    case COMPRESSION_LZMA: return "lzma";
    case COMPRESSION_WEBP: return "webp";
    default: return "other";
    }
}

static const char *photometric_name(unsigned p) {
    static const char *names[] = {"MinIsWhite", "MinIsBlack", "RGB", "Palette", "Mask", "Separated (CMYK)",
                                  "YCbCr", "7", "CIELab", "ICCLab", "ITULab"};
    return p < sizeof names / sizeof *names ? names[p] : "other";
}

/* The current page's PhotometricInterpretation; a page without one is taken as
 * libtiff guesses it (RGB for 3 or more samples, else MinIsBlack). */
static unsigned page_photometric(TIFF *tif, unsigned spp) {
    uint16_t photo = 0;
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photo)) return spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    return photo;
}

/* The current page's tags as a description; the variants decoded, others refused. */
static aug_status read_desc(const char *func, TIFF *tif, aug_image_desc *desc) {
    uint32_t w = 0, h = 0;
    uint16_t bps = 1, spp = 1, fmt = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, comp = 1;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h) || w == 0 || h == 0)
        return aug__error(AUG_ERR_JPEG, func, "TIFF: the page has no image size (%u x %u)", (unsigned)h,
                          (unsigned)w);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &comp);
    unsigned photo = page_photometric(tif, spp);
    if (fmt != SAMPLEFORMAT_UINT)
        return aug__error(AUG_ERR_JPEG, func,
                          "TIFF: sample format %u is not supported (1, unsigned integers; 2 is signed, 3 floating "
                          "point)", (unsigned)fmt);
    if (bps != 8 && bps != 16)
        return aug__error(AUG_ERR_JPEG, func, "TIFF: %u bits per sample is not supported (8 or 16)", (unsigned)bps);
    aug_image_desc d;
    memset(&d, 0, sizeof d);
    d.format = AUG_FORMAT_TIFF;
    d.height = h, d.width = w;
    d.bit_depth = bps;
    d.tiled = TIFFIsTiled(tif) != 0;
    d.planar = planar == PLANARCONFIG_SEPARATE && spp > 1;
    d.colour_space = photometric_name(photo);
    d.compression = compression_name(comp);
    d.pages = 1;
    int ok = 0;
    switch (photo) {
    case PHOTOMETRIC_MINISWHITE:
    case PHOTOMETRIC_MINISBLACK: ok = spp == 1 || spp == 2; break;
    case PHOTOMETRIC_RGB: ok = spp == 3 || spp == 4; break;
    case PHOTOMETRIC_PALETTE: ok = spp == 1 && bps == 8; break;
    case PHOTOMETRIC_YCBCR: ok = spp == 3 && bps == 8 && comp == COMPRESSION_JPEG && planar == PLANARCONFIG_CONTIG; break;
    default: break;
    }
    if (!ok)
        return aug__error(AUG_ERR_JPEG, func,
                          "TIFF: photometric %u (%s) with %u samples of %u bits is not supported (gray 1-2 samples, "
                          "RGB 3-4, 8-bit palette 1, chunky YCbCr 3 in JPEG-compressed files)",
                          (unsigned)photo, d.colour_space, (unsigned)spp, (unsigned)bps);
    d.channels = photo == PHOTOMETRIC_PALETTE || photo == PHOTOMETRIC_YCBCR ? 3 : spp;
    d.alpha = d.channels == 2 || d.channels == 4;
    *desc = d;
    return AUG_OK;
}

aug_status aug__tiff_describe(const char *func, const void *data, size_t size, int page, aug_image_desc *desc) {
    mem_file f;
    aug_status st = AUG_OK;
    TIFF *tif = open_tiff(func, &f, data, size, HEADER_ALLOC_MAX, &st);
    if (tif == NULL) return st;
    int pages = 0;
    aug_image_desc d;
    st = select_page(func, tif, &f, page, &pages);
    if (st == AUG_OK) st = read_desc(func, tif, &d);
    TIFFClose(tif);
    if (st != AUG_OK) return st;
    d.pages = pages;
    *desc = d;
    return AUG_OK;
}

/* What a decode copies out of each strip or tile. */
typedef struct {
    const aug_image_desc *desc;
    int64_t y, x, h, w;   /* the region */
    int planar_samples;   /* samples per pixel of a chunk: 1 for separate planes */
    size_t bs;            /* bytes per sample in a chunk (and in dst but for palettes) */
    const uint16_t *cmap[3]; /* a palette's colour map, else NULL */
    uint8_t *dst;
} copy_job;

/* Copies the rows [r0, r1) x columns [c0, c1) of the image held in a chunk
 * whose top-left pixel is (cy, cx) and rows are cw pixels wide, plane `plane`
 * (or every sample when chunky), into the region at dst. */
static void copy_chunk(const copy_job *j, const uint8_t *chunk, int64_t cy, int64_t cx, int64_t cw, int plane,
                       int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    size_t ps = (size_t)j->planar_samples * j->bs, oc = (size_t)j->desc->channels;
    size_t obs = j->cmap[0] ? 1 : j->bs, opx = oc * obs;
    for (int64_t r = r0; r < r1; r++) {
        const uint8_t *s = chunk + ((size_t)(r - cy) * (size_t)cw + (size_t)(c0 - cx)) * ps;
        uint8_t *o = j->dst + ((size_t)(r - j->y) * (size_t)j->w + (size_t)(c0 - j->x)) * opx;
        if (j->cmap[0]) {
            for (int64_t c = c0; c < c1; c++, s++, o += 3)
                o[0] = (uint8_t)(j->cmap[0][*s] >> 8), o[1] = (uint8_t)(j->cmap[1][*s] >> 8),
                o[2] = (uint8_t)(j->cmap[2][*s] >> 8);
        } else if (j->planar_samples == (int)oc) {
            memcpy(o, s, (size_t)(c1 - c0) * ps);
        } else {
            o += (size_t)plane * j->bs;
            for (int64_t c = c0; c < c1; c++, s += ps, o += opx) memcpy(o, s, j->bs);
        }
    }
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Every strip (or tile) of every plane the region touches: read, then copied. */
static aug_status read_chunks(const char *func, TIFF *tif, const mem_file *f, const copy_job *j, int64_t max_pixels) {
    const aug_image_desc *d = j->desc;
    int planes = d->planar && j->cmap[0] == NULL ? d->channels : 1;
    uint32_t tw = (uint32_t)d->width, th = 0;
    if (d->tiled) {
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &th) || tw == 0 ||
            th == 0)
            return aug__error(AUG_ERR_JPEG, func, "TIFF: a tiled page without a tile size (%u x %u)", (unsigned)th,
                              (unsigned)tw);
        if ((int64_t)tw * th > max_pixels)
            return aug__error(AUG_ERR_JPEG, func,
                              "TIFF: a tile of %u x %u = %lld pixels is larger than the decoder's limit of %lld pixels",
                              (unsigned)th, (unsigned)tw, (long long)tw * th, (long long)max_pixels);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &th);
        if (th == 0 || th > d->height) th = (uint32_t)d->height;
    }
    size_t row = (size_t)tw * (size_t)j->planar_samples * j->bs, cap = row * th;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) return aug__error(AUG_ERR_MEMORY, func, "out of memory (a TIFF chunk of %zu bytes)", cap);
    aug__row_poll poll;
    aug__poll_begin(&poll);
    aug_status st = AUG_OK;
    for (int p = 0; p < planes && st == AUG_OK; p++) {
        for (int64_t cy = j->y / th * th; cy < j->y + j->h && st == AUG_OK; cy += th) {
            int64_t cx0 = d->tiled ? j->x / tw * tw : 0;
            for (int64_t cx = cx0; cx < j->x + j->w && st == AUG_OK; cx += tw) {
                if (aug__poll_stop(&poll)) {
                    st = aug__interrupted(func);
                    break;
                }
                tmsize_t want, got;
                if (d->tiled) {
                    want = (tmsize_t)cap;
                    got = TIFFReadEncodedTile(tif, TIFFComputeTile(tif, (uint32_t)cx, (uint32_t)cy, 0, (uint16_t)p),
                                              buf, want);
                } else {
                    want = (tmsize_t)(row * (size_t)min64(th, d->height - cy));
                    got = TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, (uint32_t)cy, (uint16_t)p), buf, want);
                }
                if (got != want) {
                    st = got < 0 ? tiff_fail(func, f, d->tiled ? "a tile cannot be decoded" : "a strip cannot be decoded")
                                 : aug__error(AUG_ERR_JPEG, func, "TIFF: a %s at row %lld gave %lld bytes, not %lld",
                                              d->tiled ? "tile" : "strip", (long long)cy, (long long)got,
                                              (long long)want);
                    break;
                }
                copy_chunk(j, buf, cy, cx, tw, p, max64(cy, j->y), min64(cy + th, j->y + j->h), max64(cx, j->x),
                           min64(cx + tw, j->x + j->w));
            }
        }
    }
    free(buf);
    return st;
}

aug_status aug__tiff_decode(const char *func, const void *data, size_t size, int page, const aug_image_desc *desc,
                            int64_t max_pixels, int64_t y, int64_t x, int64_t h, int64_t w, void *dst) {
    mem_file f;
    aug_status st = AUG_OK;
    TIFF *tif = open_tiff(func, &f, data, size, HEADER_ALLOC_MAX, &st);
    if (tif == NULL) return st;
    int pages = 0;
    aug_image_desc d;
    memset(&d, 0, sizeof d);
    st = select_page(func, tif, &f, page, &pages);
    if (st == AUG_OK) st = read_desc(func, tif, &d);
    if (st == AUG_OK && (d.height != desc->height || d.width != desc->width || d.channels != desc->channels ||
                         d.bit_depth != desc->bit_depth))
        st = aug__error(AUG_ERR_JPEG, func, "TIFF: the page is not the one described");
    uint16_t spp = 1;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    unsigned photo = page_photometric(tif, spp);
    copy_job j = {desc, y, x, h, w, desc->planar ? 1 : desc->channels, (size_t)desc->bit_depth / 8, {NULL, NULL, NULL},
                  dst};
    if (st == AUG_OK && photo == PHOTOMETRIC_PALETTE) {
        uint16_t *r = NULL, *g = NULL, *b = NULL;
        if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &r, &g, &b) || r == NULL || g == NULL || b == NULL)
            st = tiff_fail(func, &f, "a palette page without a colour map");
        j.cmap[0] = r, j.cmap[1] = g, j.cmap[2] = b, j.planar_samples = 1;
    }
    if (st == AUG_OK && photo == PHOTOMETRIC_YCBCR && !TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB))
        st = tiff_fail(func, &f, "YCbCr cannot be converted to RGB");
    if (st == AUG_OK) st = read_chunks(func, tif, &f, &j, max_pixels);
    if (st == AUG_OK && photo == PHOTOMETRIC_MINISWHITE) {
        /* white is 0: the gray sample inverted, an extra sample (alpha) kept */
        size_t n = (size_t)h * (size_t)w, oc = (size_t)desc->channels;
        if (desc->bit_depth == 16)
            for (size_t i = 0; i < n; i++) ((uint16_t *)dst)[i * oc] = (uint16_t)(65535u - ((uint16_t *)dst)[i * oc]);
        else
            for (size_t i = 0; i < n; i++) ((uint8_t *)dst)[i * oc] = (uint8_t)(255u - ((uint8_t *)dst)[i * oc]);
    }
    TIFFClose(tif);
    return st;
}
