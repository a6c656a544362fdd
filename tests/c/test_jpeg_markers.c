/* test_jpeg_markers.c: the marker walk that keeps truncated files from nvJPEG
 * (core/jpeg_markers.c). Files from libjpeg's compressor: baseline,
 * progressive (many scans) and with restart markers; every truncation point,
 * with libjpeg-turbo's own decode (warnings as errors) as the independent
 * judge that each cut file is incomplete; an EXIF-like thumbnail carrying its
 * own EOI inside APP1; bytes after the EOI; fill bytes before markers; a bad
 * segment length; the error message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jpeglib.h>
#include <turbojpeg.h>

#include "aug/aug.h"
#include "core/jpeg_markers.h"

typedef struct file {
    unsigned char *buf;
    unsigned long size;
} file;

enum { PLAIN, PROGRESSIVE, RESTART, GRAY };

/* A w x h file of kind from libjpeg's compressor (noise on gradients: FF 00
 * stuffing occurs in the entropy-coded data). */
static file encode(int w, int h, int kind) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    file f = {NULL, 0};
    jpeg_mem_dest(&c, &f.buf, &f.size);
    const int nc = kind == GRAY ? 1 : 3;
    c.image_width = (JDIMENSION)w, c.image_height = (JDIMENSION)h;
    c.input_components = nc;
    c.in_color_space = nc == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 95, TRUE);
    if (kind == PROGRESSIVE) jpeg_simple_progression(&c);
    if (kind == RESTART) c.restart_interval = 1; /* a restart marker after every MCU */
    jpeg_start_compress(&c, TRUE);
    unsigned char *row = malloc((size_t)w * (size_t)nc);
    uint32_t x = 12345;
    while (c.next_scanline < c.image_height) {
        for (int i = 0; i < w * nc; i++) {
            x = x * 1103515245u + 12345u;
            row[i] = (unsigned char)(i * 255 / (w * nc) + (int)((x >> 16) % 97));
        }
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return f;
}

/* Whether libjpeg-turbo decodes data in full (warnings such as "Premature end
 * of JPEG file" are errors, as in the CPU decoder). */
static int turbo_decodes(const unsigned char *data, size_t size) {
    tjhandle tj = tjInitDecompress();
    int w = 0, h = 0, ss = 0, cs = 0, ok = 0;
    if (tjDecompressHeader3(tj, data, (unsigned long)size, &w, &h, &ss, &cs) == 0) {
        unsigned char *px = malloc((size_t)w * (size_t)h * 3);
        ok = tjDecompress2(tj, data, (unsigned long)size, px, w, 0, h, TJPF_RGB, TJFLAG_STOPONWARNING) == 0;
        free(px);
    }
    tjDestroy(tj);
    return ok;
}

/* data with `ins` (n bytes) inserted at offset at. */
static unsigned char *insert(const unsigned char *data, size_t size, size_t at, const void *ins, size_t n) {
    unsigned char *out = malloc(size + n);
    memcpy(out, data, at);
    memcpy(out + at, ins, n);
    memcpy(out + at + n, data + at, size - at);
    return out;
}

/* Complete files: EOI at their very end, the number of scans, libjpeg agrees. */
static void test_complete(void **state) {
    (void)state;
    const int scans[4] = {1, 10, 1, 1}; /* jpeg_simple_progression: 10 scans for YCbCr */
    for (int k = PLAIN; k <= GRAY; k++) {
        file f = encode(67, 45, k);
        aug__jpeg_walk w = aug__jpeg_walk_markers(f.buf, f.size);
        assert_int_equal(w.end, AUG__JPEG_END_EOI);
        assert_int_equal(w.at, f.size);
        assert_int_equal(w.scans, scans[k]);
        assert_true(turbo_decodes(f.buf, f.size));
        assert_int_equal(aug__jpeg_check_complete("f", f.buf, f.size), AUG_OK);
        if (k == RESTART) { /* the fixture really has restart markers and stuffed bytes in its scan */
            int rst = 0, stuffed = 0;
            for (unsigned long i = 0; i + 1 < f.size; i++)
                rst += f.buf[i] == 0xFF && f.buf[i + 1] >= 0xD0 && f.buf[i + 1] <= 0xD7,
                    stuffed += f.buf[i] == 0xFF && f.buf[i + 1] == 0x00;
            assert_true(rst > 10 && stuffed > 0);
        }
        free(f.buf);
    }
}

/* Every cut of every kind lacks its EOI, and libjpeg-turbo refuses each cut
 * too; where the data ends is named. */
static void test_every_truncation(void **state) {
    (void)state;
    for (int k = PLAIN; k <= GRAY; k++) {
        file f = encode(40, 24, k);
        int seen[6] = {0};
        for (size_t n = 0; n < f.size; n++) {
            aug__jpeg_walk w = aug__jpeg_walk_markers(f.buf, n);
            if (w.end == AUG__JPEG_END_EOI) fail_msg("kind %d cut to %zu of %lu bytes: the walk found EOI", k, n, f.size);
            seen[w.end]++;
            if (n >= 2 && n % 7 == 0 && turbo_decodes(f.buf, n))
                fail_msg("kind %d cut to %zu bytes: libjpeg-turbo decodes it (the fixture is wrong)", k, n);
            assert_int_equal(aug__jpeg_check_complete("f", f.buf, n), AUG_ERR_JPEG);
        }
        assert_int_equal(seen[AUG__JPEG_END_NO_SOI], 2);  /* 0 and 1 byte */
        assert_true(seen[AUG__JPEG_END_IN_SEGMENT] > 100); /* inside the tables, the lengths among them */
        assert_true(seen[AUG__JPEG_END_IN_SCAN] > 100);
        assert_true(seen[AUG__JPEG_END_AT_MARKER] >= 2);
        /* inside the first segment's length: SOI, FF E0 (APP0), one byte of its length */
        assert_int_equal(f.buf[2], 0xFF);
        assert_int_equal(aug__jpeg_walk_markers(f.buf, 4).end, AUG__JPEG_END_IN_SEGMENT);
        assert_int_equal(aug__jpeg_walk_markers(f.buf, 5).end, AUG__JPEG_END_IN_SEGMENT);
        assert_int_equal(aug__jpeg_walk_markers(f.buf, 3).end, AUG__JPEG_END_AT_MARKER);
        /* just before EOI, and its FF alone: the last scan's data has no end */
        assert_int_equal(aug__jpeg_walk_markers(f.buf, f.size - 2).end, AUG__JPEG_END_IN_SCAN);
        assert_int_equal(aug__jpeg_walk_markers(f.buf, f.size - 1).end, AUG__JPEG_END_IN_SCAN);
        free(f.buf);
    }
}

/* An APP1 segment right after SOI holding a whole JPEG (an EXIF thumbnail,
 * with its own FF D9): its EOI is not the file's. */
static void test_thumbnail(void **state) {
    (void)state;
    file main_ = encode(48, 32, PLAIN), thumb = encode(8, 8, PLAIN);
    size_t seg = 2 + 2 + 6 + thumb.size; /* FF E1, length, "Exif\0\0", the thumbnail */
    unsigned char *app1 = malloc(seg);
    app1[0] = 0xFF, app1[1] = 0xE1, app1[2] = (unsigned char)((seg - 2) >> 8), app1[3] = (unsigned char)(seg - 2);
    memcpy(app1 + 4, "Exif\0\0", 6);
    memcpy(app1 + 10, thumb.buf, thumb.size);
    size_t size = main_.size + seg;
    unsigned char *data = insert(main_.buf, main_.size, 2, app1, seg);
    assert_true(turbo_decodes(data, size));
    aug__jpeg_walk w = aug__jpeg_walk_markers(data, size);
    assert_int_equal(w.end, AUG__JPEG_END_EOI);
    assert_int_equal(w.at, size);
    assert_int_equal(w.scans, 1);
    /* cut right after the thumbnail's EOI, and inside the main file's scan */
    const size_t cuts[3] = {2 + seg, 2 + seg + 300, size - 2};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(data[2 + seg - 2], 0xFF), assert_int_equal(data[2 + seg - 1], 0xD9);
        w = aug__jpeg_walk_markers(data, cuts[i]);
        if (w.end == AUG__JPEG_END_EOI) fail_msg("cut to %zu: the thumbnail's EOI was taken for the file's", cuts[i]);
        assert_false(turbo_decodes(data, cuts[i]));
    }
    free(data), free(app1), free(main_.buf), free(thumb.buf);
}

/* Bytes after EOI (garbage, another SOI, a second image) are not read. */
static void test_trailing_bytes(void **state) {
    (void)state;
    file f = encode(33, 17, PROGRESSIVE), g = encode(8, 8, PLAIN);
    const unsigned char tails[3][6] = {{0, 0, 0, 0, 0, 0}, {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10}, {'x', 0xFF, 0, 0xFF, 0xDA, 1}};
    for (int t = 0; t < 4; t++) {
        const void *tail = t < 3 ? (const void *)tails[t] : (const void *)g.buf;
        size_t n = t < 3 ? 6 : g.size;
        unsigned char *data = insert(f.buf, f.size, f.size, tail, n);
        assert_true(turbo_decodes(data, f.size + n));
        aug__jpeg_walk w = aug__jpeg_walk_markers(data, f.size + n);
        assert_int_equal(w.end, AUG__JPEG_END_EOI);
        assert_int_equal(w.at, f.size);
        free(data);
    }
    free(f.buf), free(g.buf);
}

/* Fill bytes (FF FF ...) before markers: before EOI, between the header's
 * segments and before a progressive file's later scans. */
static void test_fill_bytes(void **state) {
    (void)state;
    file f = encode(40, 24, PROGRESSIVE);
    const unsigned char fill[3] = {0xFF, 0xFF, 0xFF};
    /* before EOI */
    unsigned char *a = insert(f.buf, f.size, f.size - 2, fill, 3);
    assert_true(turbo_decodes(a, f.size + 3));
    aug__jpeg_walk w = aug__jpeg_walk_markers(a, f.size + 3);
    assert_int_equal(w.end, AUG__JPEG_END_EOI), assert_int_equal(w.at, f.size + 3);
    assert_int_equal(aug__jpeg_walk_markers(a, f.size + 2).end, AUG__JPEG_END_IN_SCAN); /* FF FF FF FF, no D9 */
    free(a);
    /* before the second segment (after APP0), and before the last scan's SOS */
    size_t app0_end = 4 + ((size_t)f.buf[4] << 8 | f.buf[5]), last_sos = 0;
    for (size_t i = 2; i + 1 < f.size; i++)
        if (f.buf[i] == 0xFF && f.buf[i + 1] == 0xDA) last_sos = i;
    unsigned char *b = insert(f.buf, f.size, app0_end, fill, 2);
    unsigned char *c = insert(b, f.size + 2, last_sos + 2, fill, 3);
    assert_true(turbo_decodes(c, f.size + 5));
    w = aug__jpeg_walk_markers(c, f.size + 5);
    assert_int_equal(w.end, AUG__JPEG_END_EOI), assert_int_equal(w.at, f.size + 5);
    assert_int_equal(w.scans, 10);
    free(b), free(c), free(f.buf);
}

/* A segment length below 2; stray bytes between segments are skipped (libjpeg
 * warns about them, and its decoder then refuses the file). */
static void test_bad_structure(void **state) {
    (void)state;
    const unsigned char bogus[] = {0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x01, 0xFF, 0xD9};
    aug__jpeg_walk w = aug__jpeg_walk_markers(bogus, sizeof bogus);
    assert_int_equal(w.end, AUG__JPEG_END_BAD_LENGTH), assert_int_equal(w.at, 2);
    assert_int_equal(aug__jpeg_check_complete("f", bogus, sizeof bogus), AUG_ERR_JPEG);
    assert_string_equal(aug_last_error(), "f: Corrupt JPEG data: the segment of marker 0xfe at byte 2 has a length below 2");
    const unsigned char stray[] = {0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x03, 0xFF, 1, 2, 0xFF, 0xD9};
    w = aug__jpeg_walk_markers(stray, sizeof stray);
    assert_int_equal(w.end, AUG__JPEG_END_EOI), assert_int_equal(w.at, sizeof stray);
    assert_int_equal(aug__jpeg_walk_markers((const uint8_t *)"\xFF\xD9", 2).end, AUG__JPEG_END_NO_SOI);
    assert_int_equal(aug__jpeg_walk_markers(NULL, 0).end, AUG__JPEG_END_NO_SOI);
}

/* The messages: libjpeg-turbo's words, the size and where the data ended. */
static void test_messages(void **state) {
    (void)state;
    file f = encode(40, 24, PLAIN);
    assert_int_equal(aug__jpeg_check_complete("g", f.buf, f.size / 2), AUG_ERR_JPEG);
    char want[160];
    snprintf(want, sizeof want,
             "g: Premature end of JPEG file (its %lu bytes end inside the entropy-coded data of scan 1; no EOI marker)",
             f.size / 2);
    assert_string_equal(aug_last_error(), want);
    assert_int_equal(aug__jpeg_check_complete("g", f.buf, 5), AUG_ERR_JPEG);
    assert_string_equal(aug_last_error(),
                        "g: Premature end of JPEG file (its 5 bytes end inside a marker segment before the first scan; "
                        "no EOI marker)");
    free(f.buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete),       cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_thumbnail),      cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_fill_bytes),     cmocka_unit_test(test_bad_structure),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
