/* tests/fuzz/fuzz_jpeg_markers.c: libFuzzer target that decodes through the whole
 * JPEG path (aug_jpeg_info, aug_decoder_decode: TurboJPEG, the libjpeg-API fallback,
 * colour conversion) with structure-aware mutations. Build and run: tests/fuzz/run.sh.
 *
 * fuzz_jpeg's byte-level mutations mostly break the first marker they touch, so
 * libjpeg-turbo rejects the file in its header reader. Here LLVMFuzzerCustomMutator
 * parses the input into marker segments (SOI, APPn, DQT, SOFn, DHT, DRI, SOS with its
 * entropy-coded data, RSTn, EOI) and mutates one thing a real encoder writes:
 * a segment's length field; SOF fields (precision, height, width, component count,
 * sampling factors, quantisation table ids; the SOF type: baseline, extended,
 * progressive, lossless, arithmetic); DHT classes, ids, code counts and symbols; SOS
 * component selectors, table ids and the progressive scan parameters (Ss, Se, Ah,
 * Al); the restart interval (DRI, inserted when missing); RST markers inside the
 * entropy data; whole segments duplicated (extra scans), dropped or swapped; or a
 * segment's payload through libFuzzer's own mutator with its length fixed up. An
 * input that does not parse falls back to LLVMFuzzerMutate. So most mutants still
 * reach the scan decoders, and run with the seeds of fuzz_jpeg (baseline, 4:2:0 /
 * 4:2:2 / 4:4:4, gray, CMYK, progressive, restart markers) and the sample photos.
 *
 * libjpeg-turbo itself is the system's shared library, not instrumented: coverage
 * feedback sees aug's code only, and ASan sees its heap blocks (the decoder's
 * output, aug's buffers) but not libjpeg-turbo's internal reads. Building an
 * instrumented libjpeg-turbo is outside this repository's scope.
 *
 * Checked beyond ASan/UBSan/leaks: info and decode agree on the size; a decoded
 * image is (H, W, 3) uint8 "HWC"; a failure names aug_decoder_decode and leaves
 * *out untouched; images over MAX_DECODE_PIXELS are refused by the decoder's
 * limit (aug_decoder_set_limit) with AUG_ERR_JPEG; the marker walk that gates
 * nvJPEG (core/jpeg_markers.c) runs on every input and reaches an EOI in every
 * JPEG libjpeg-turbo decodes (a CUDA decoder never refuses as truncated a file
 * the CPU decodes: libjpeg reads to EOI, and a missing one is an error here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jpeg_markers.h"
#include "fuzz_util.h"

#define MAX_DECODE_PIXELS ((int64_t)1 << 22)
#define MAX_SEGS 512

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static aug_decoder *decoder;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    decoder = aug_decoder_new(aug_cpu_device(), 0, 1000, 0);
    CHECK(decoder != NULL);
    CHECK(aug_decoder_set_limit(decoder, MAX_DECODE_PIXELS) == AUG_OK);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int64_t H = -1, W = -1;
    aug_status info = aug_jpeg_info(data, size, &H, &W);
    if (info != AUG_OK) CHECK(strncmp(aug_last_error(), "aug_jpeg_info: ", 15) == 0);
    aug_tensor *sentinel = (aug_tensor *)(uintptr_t)0x5A5A, *out = sentinel;
    aug_status st = aug_decoder_decode(decoder, data, size, NULL, &out);
    const aug__jpeg_walk walk = aug__jpeg_walk_markers(data, size);
    CHECK(walk.end != AUG__JPEG_END_EOI || walk.at <= size);
    if (st == AUG_OK) {
        CHECK(info == AUG_OK && out != sentinel);
        if (aug_image_format_of(data, size) == AUG_FORMAT_JPEG) CHECK(walk.end == AUG__JPEG_END_EOI);
        CHECK(out->ndim == 3 && out->shape[0] == H && out->shape[1] == W && out->shape[2] == 3);
        CHECK(out->dtype == AUG_UINT8 && strcmp(out->layout, "HWC") == 0 && aug_tensor_is_contiguous(out));
        CHECK(H * W <= MAX_DECODE_PIXELS);
        /* read every pixel (ASan: the whole output is inside its allocation) */
        const uint8_t *p = aug_tensor_ptr(out);
        unsigned sum = 0;
        for (int64_t i = 0; i < H * W * 3; i++) sum += p[i];
        (void)sum;
        aug_tensor_free(out);
    } else {
        CHECK(out == sentinel);
        CHECK(strncmp(aug_last_error(), "aug_decoder_decode: ", 20) == 0);
        if (info == AUG_OK && H * W > MAX_DECODE_PIXELS) CHECK(st == AUG_ERR_JPEG);
    }
    return 0;
}

/* ---- the structure-aware mutator ---------------------------------------------------- */

typedef struct {
    size_t off, len; /* bytes [off, off + len) of the input */
    uint8_t marker;  /* 0: entropy-coded data after an SOS */
} seg;

static uint32_t rnd(uint32_t *s) { /* xorshift32 */
    uint32_t x = *s ? *s : 0x9E3779B9u;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return *s = x;
}

static int standalone(uint8_t m) { return m == 0xD8 || m == 0xD9 || m == 0x01 || (m >= 0xD0 && m <= 0xD7); }

/* Splits data into segments; 0 when it is not a JPEG we can follow. */
static int parse(const uint8_t *d, size_t n, seg *segs, int *count) {
    if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return 0;
    int k = 0;
    size_t i = 0;
    while (i < n && k < MAX_SEGS) {
        if (d[i] != 0xFF || i + 1 >= n) { /* trailing bytes: one opaque segment */
            segs[k++] = (seg){i, n - i, 0};
            break;
        }
        uint8_t m = d[i + 1];
        size_t len = 2;
        if (!standalone(m) && m != 0xFF) {
            if (i + 4 > n) return 0;
            len = 2 + ((size_t)d[i + 2] << 8 | d[i + 3]);
            if (len < 4 || i + len > n) len = n - i;
        }
        segs[k++] = (seg){i, len, m};
        i += len;
        if (m == 0xDA && i < n && k < MAX_SEGS) { /* entropy data: up to a marker other than RSTn / stuffing */
            size_t j = i;
            while (j + 1 < n && !(d[j] == 0xFF && d[j + 1] != 0x00 && !(d[j + 1] >= 0xD0 && d[j + 1] <= 0xD7)))
                j++;
            if (j + 1 >= n) j = n;
            segs[k++] = (seg){i, j - i, 0};
            i = j;
        }
    }
    *count = k;
    return k >= 2;
}

/* Picks a segment with the given marker (any marker with header >= 4 when m == 0x100). */
static int pick(const seg *segs, int n, int m, uint32_t *s) {
    int idx[MAX_SEGS], c = 0;
    for (int i = 0; i < n; i++) {
        int hit = m == 0x100 ? (segs[i].marker && !standalone(segs[i].marker) && segs[i].len >= 4)
                  : m == 0x1C0 ? (segs[i].marker >= 0xC0 && segs[i].marker <= 0xCF && segs[i].marker != 0xC4 &&
                                  segs[i].marker != 0xC8 && segs[i].marker != 0xCC)
                               : segs[i].marker == m && (m != 0 || segs[i].len > 0);
        if (hit) idx[c++] = i;
    }
    return c ? idx[rnd(s) % (uint32_t)c] : -1;
}

static const uint16_t interesting16[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 255, 256, 2047, 2048, 4095, 65500, 65535};
static const uint8_t interesting8[] = {0, 1, 2, 3, 4, 8, 12, 15, 16, 17, 63, 64, 127, 128, 255};

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }

static uint8_t pick8(uint32_t *s) {
    uint32_t r = rnd(s);
    return (r & 1) ? interesting8[(r >> 1) % (sizeof interesting8)] : (uint8_t)(r >> 8);
}

/* Writes segment order[0..n) of src into dst (with a patched copy for `edit`);
 * returns the size, or 0 when it does not fit. */
typedef struct {
    const uint8_t *src;
    const seg *s;
    int order[MAX_SEGS + 2];
    int n;
    int edit;             /* segment replaced by (ebuf, elen), -1 none */
    const uint8_t *ebuf;
    size_t elen;
} plan;

static size_t emit(const plan *p, uint8_t *dst, size_t max) {
    size_t o = 0;
    for (int i = 0; i < p->n; i++) {
        int k = p->order[i];
        const uint8_t *b = k == p->edit ? p->ebuf : p->src + p->s[k].off;
        size_t l = k == p->edit ? p->elen : p->s[k].len;
        if (o + l > max) return 0;
        memmove(dst + o, b, l);
        o += l;
    }
    return o;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    static seg segs[MAX_SEGS];
    static uint8_t src[1 << 17], ebuf[1 << 17];
    int n = 0;
    uint32_t s = seed | 1u;
    if (size > sizeof src || max_size > sizeof src || !parse(data, size, segs, &n) || rnd(&s) % 16 == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    memcpy(src, data, size);
    plan p = {src, segs, {0}, n, -1, NULL, 0};
    for (int i = 0; i < n; i++) p.order[i] = i;
    int k;
    switch (rnd(&s) % 11) {
    case 0: /* a length field */
        if ((k = pick(segs, n, 0x100, &s)) < 0) break;
        memcpy(ebuf, src + segs[k].off, segs[k].len);
        {
            uint16_t L = (uint16_t)(segs[k].len - 2), v;
            uint32_t r = rnd(&s) % 4;
            v = r == 0 ? (uint16_t)(L + 1) : r == 1 ? (uint16_t)(L - 1) : r == 2 ? interesting16[rnd(&s) % 16]
                                                                               : (uint16_t)rnd(&s);
            put16(ebuf + 2, v);
        }
        p.edit = k, p.ebuf = ebuf, p.elen = segs[k].len;
        break;
    case 1: /* an SOF field */
    case 2:
        if ((k = pick(segs, n, 0x1C0, &s)) < 0 || segs[k].len < 10) break;
        memcpy(ebuf, src + segs[k].off, segs[k].len);
        {
            size_t L = segs[k].len;
            uint32_t r = rnd(&s) % 8;
            if (r == 0) ebuf[4] = (rnd(&s) & 1) ? 12 : pick8(&s);                 /* precision */
            else if (r == 1) put16(ebuf + 5, interesting16[rnd(&s) % 16]);        /* height */
            else if (r == 2) put16(ebuf + 7, interesting16[rnd(&s) % 16]);        /* width */
            else if (r == 3) ebuf[9] = (uint8_t)(rnd(&s) % 6);                    /* components */
            else if (r == 4) {                                                    /* SOF type */
                static const uint8_t types[] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC9, 0xCA, 0xCB, 0xCD};
                ebuf[1] = types[rnd(&s) % sizeof types];
            } else if (L > 10) { /* a component's id, sampling factors or table */
                size_t c = 10 + (rnd(&s) % ((L - 10 + 2) / 3)) * 3;
                size_t f = c + rnd(&s) % 3;
                if (f < L) ebuf[f] = f == c + 1 ? (uint8_t)((rnd(&s) % 5) << 4 | (rnd(&s) % 5)) : pick8(&s);
            }
        }
        p.edit = k, p.ebuf = ebuf, p.elen = segs[k].len;
        break;
    case 3: /* DHT: class / id, a code count or a symbol */
        if ((k = pick(segs, n, 0xC4, &s)) < 0 || segs[k].len < 22) break;
        memcpy(ebuf, src + segs[k].off, segs[k].len);
        {
            uint32_t r = rnd(&s) % 3;
            size_t f = r == 0 ? 4 : r == 1 ? 5 + rnd(&s) % 16 : 21 + rnd(&s) % (segs[k].len - 21);
            ebuf[f] = r == 0 ? (uint8_t)((rnd(&s) % 3) << 4 | (rnd(&s) % 5)) : pick8(&s);
        }
        p.edit = k, p.ebuf = ebuf, p.elen = segs[k].len;
        break;
    case 4: /* SOS: selectors, tables, Ss / Se / Ah / Al */
        if ((k = pick(segs, n, 0xDA, &s)) < 0 || segs[k].len < 8) break;
        memcpy(ebuf, src + segs[k].off, segs[k].len);
        {
            size_t L = segs[k].len, f = 4 + rnd(&s) % (L - 4);
            uint32_t r = rnd(&s) % 3;
            if (r == 0) f = L - 3 + rnd(&s) % 3; /* the progressive parameters */
            ebuf[f] = (f == L - 1) ? (uint8_t)((rnd(&s) % 15) << 4 | (rnd(&s) % 15)) : pick8(&s);
        }
        p.edit = k, p.ebuf = ebuf, p.elen = segs[k].len;
        break;
    case 5: /* the restart interval: change DRI, or insert one before the first SOS */
        if ((k = pick(segs, n, 0xDD, &s)) >= 0 && segs[k].len >= 6) {
            memcpy(ebuf, src + segs[k].off, segs[k].len);
            put16(ebuf + 4, interesting16[rnd(&s) % 16]);
            p.edit = k, p.ebuf = ebuf, p.elen = segs[k].len;
        } else if ((k = pick(segs, n, 0xDA, &s)) >= 0 && size + 6 <= sizeof src && n < MAX_SEGS) {
            /* a DRI segment appended to the input's bytes, placed before the SOS */
            uint8_t dri[6] = {0xFF, 0xDD, 0, 4, 0, 0};
            put16(dri + 4, (uint16_t)(1 + rnd(&s) % 8));
            memcpy(src + size, dri, 6);
            segs[n] = (seg){size, 6, 0xDD};
            memmove(p.order + k + 1, p.order + k, (size_t)(n - k) * sizeof p.order[0]);
            p.order[k] = n;
            p.n = n + 1;
        }
        break;
    case 6: /* RST markers in the entropy data: insert one, or cut the data short */
        if ((k = pick(segs, n, 0, &s)) < 0) break;
        {
            size_t L = segs[k].len, at = rnd(&s) % (L + 1);
            memcpy(ebuf, src + segs[k].off, L);
            if (rnd(&s) & 1) {
                memmove(ebuf + at + 2, ebuf + at, L - at);
                ebuf[at] = 0xFF, ebuf[at + 1] = (uint8_t)(0xD0 + rnd(&s) % 8);
                p.elen = L + 2;
            } else {
                p.elen = at;
            }
            p.edit = k, p.ebuf = ebuf;
        }
        break;
    case 7: /* duplicate a segment (an SOS with its scan: an extra scan) */
        if (n + 2 > MAX_SEGS) break;
        k = 1 + (int)(rnd(&s) % (uint32_t)(n - 1));
        {
            int len = segs[k].marker == 0xDA && k + 1 < n && segs[k + 1].marker == 0 ? 2 : 1;
            int at = 1 + (int)(rnd(&s) % (uint32_t)(n - 1));
            memmove(p.order + at + len, p.order + at, (size_t)(n - at) * sizeof p.order[0]);
            for (int j = 0; j < len; j++) p.order[at + j] = k + j;
            p.n = n + len;
        }
        break;
    case 8: /* drop a segment */
        k = 1 + (int)(rnd(&s) % (uint32_t)(n - 1));
        memmove(p.order + k, p.order + k + 1, (size_t)(n - k - 1) * sizeof p.order[0]);
        p.n = n - 1;
        break;
    case 9: { /* swap two segments */
        int a = 1 + (int)(rnd(&s) % (uint32_t)(n - 1)), b = 1 + (int)(rnd(&s) % (uint32_t)(n - 1));
        int t = p.order[a];
        p.order[a] = p.order[b], p.order[b] = t;
        break;
    }
    default: /* a payload through libFuzzer's mutator, its length fixed up */
        if ((k = pick(segs, n, 0x100, &s)) < 0) break;
        {
            size_t L = segs[k].len;
            memcpy(ebuf, src + segs[k].off, L);
            size_t cap = L + 64 < 65535 ? L + 64 : 65535;
            size_t nl = 4 + LLVMFuzzerMutate(ebuf + 4, L - 4, cap - 4);
            put16(ebuf + 2, (uint16_t)(nl - 2));
            p.edit = k, p.ebuf = ebuf, p.elen = nl;
        }
        break;
    }
    size_t out = emit(&p, data, max_size);
    return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
