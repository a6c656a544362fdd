/* core/jpeg_markers.c: walks a JPEG's marker structure to its EOI
 * (core/jpeg_markers.h) without decoding anything.
 *
 * The rules are libjpeg's (jdmarker.c, jdhuff.c): after SOI, a marker is 0xFF,
 * any number of 0xFF fill bytes, then the code. RST0-7, TEM and SOI carry no
 * parameters; every other marker is followed by a big-endian length that
 * counts itself. An SOS segment is followed by entropy-coded data in which
 * 0xFF 0x00 is a data byte and RSTn a restart; any other marker ends the scan
 * (progressive files have many scans, with DHT and other segments between
 * them). The first EOI reached this way ends the file: an EOI inside a segment
 * (an EXIF thumbnail in APP1) is skipped with the segment.
 *
 * Cost: memchr for 0xFF over the entropy-coded data (0xFF occurs there about
 * once in 256 bytes, as FF 00), a jump over each segment. */
#include <stdio.h>
#include <string.h>

#include "jpeg_markers.h"

/* The offset of the first 0xFF at or after i, or n. */
static size_t next_ff(const uint8_t *d, size_t i, size_t n) {
    if (i >= n) return n;
    const uint8_t *q = memchr(d + i, 0xFF, n - i);
    return q ? (size_t)(q - d) : n;
}

/* From i inside a scan's entropy-coded data: the offset of the 0xFF that
 * starts the marker ending the scan, or n. */
static size_t scan_end(const uint8_t *d, size_t i, size_t n) {
    for (;;) {
        size_t ff = next_ff(d, i, n);
        size_t j = ff + 1;
        while (j < n && d[j] == 0xFF) j++; /* fill bytes */
        if (j >= n) return n;
        if (d[j] != 0x00 && (d[j] < 0xD0 || d[j] > 0xD7)) return j - 1; /* the FF before the code */
        i = j + 1; /* stuffed FF 00, or a restart marker: the scan goes on */
    }
}

/* The walk; header_only stops at the first SOS (end AT_MARKER, at its offset). */
static aug__jpeg_walk walk(const uint8_t *d, size_t n, int header_only) {
    aug__jpeg_walk w = {AUG__JPEG_END_NO_SOI, n, 0, 0};
    if (n < 2 || d[0] != 0xFF || d[1] != 0xD8) return w;
    size_t i = 2;
    for (;;) {
        i = next_ff(d, i, n); /* stray bytes before a marker: skipped, as libjpeg does */
        while (i < n && d[i] == 0xFF) i++;
        if (i >= n) {
            w.end = AUG__JPEG_END_AT_MARKER;
            return w;
        }
        const size_t marker = i - 1;
        const uint8_t code = d[i++];
        if (code == 0xD9) {
            w.end = AUG__JPEG_END_EOI, w.at = i;
            return w;
        }
        /* FF 00 outside a scan is stray data; RSTn, TEM and SOI have no length */
        if (code == 0x00 || code == 0x01 || code == 0xD8 || (code >= 0xD0 && code <= 0xD7)) continue;
        if (n - i < 2) {
            w.end = AUG__JPEG_END_IN_SEGMENT;
            return w;
        }
        if (code == 0xDA && header_only) {
            w.end = AUG__JPEG_END_AT_MARKER, w.at = marker;
            return w;
        }
        if (w.frame == 0 && code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC)
            w.frame = code;
        const size_t len = (size_t)d[i] << 8 | d[i + 1];
        if (len < 2) {
            w.end = AUG__JPEG_END_BAD_LENGTH, w.at = marker;
            return w;
        }
        if (len > n - i) {
            w.end = AUG__JPEG_END_IN_SEGMENT;
            return w;
        }
        i += len;
        if (code == 0xDA) {
            w.scans++;
            if ((i = scan_end(d, i, n)) >= n) {
                w.end = AUG__JPEG_END_IN_SCAN;
                return w;
            }
        }
    }
}

aug__jpeg_walk aug__jpeg_walk_markers(const uint8_t *d, size_t n) { return walk(d, n, 0); }

int aug__jpeg_frame(const uint8_t *d, size_t n) { return walk(d, n, 1).frame; }

aug_status aug__jpeg_check_complete(const char *func, const void *data, size_t size) {
    const aug__jpeg_walk w = aug__jpeg_walk_markers(data, size);
    if (w.end == AUG__JPEG_END_EOI) return AUG_OK;
    if (w.end == AUG__JPEG_END_NO_SOI)
        return aug__error(AUG_ERR_JPEG, func, "Not a JPEG file: it does not start with SOI (FF D8)");
    if (w.end == AUG__JPEG_END_BAD_LENGTH)
        return aug__error(AUG_ERR_JPEG, func, "Corrupt JPEG data: the segment of marker 0x%02x at byte %zu has a "
                          "length below 2", ((const uint8_t *)data)[w.at + 1], w.at);
    char scan[64];
    if (w.end == AUG__JPEG_END_IN_SCAN)
        snprintf(scan, sizeof scan, "inside the entropy-coded data of scan %d", w.scans);
    else
        snprintf(scan, sizeof scan, "%s %s", w.end == AUG__JPEG_END_IN_SEGMENT ? "inside a marker segment" : "at a marker",
                 w.scans ? "after the last scan" : "before the first scan");
    return aug__error(AUG_ERR_JPEG, func, "Premature end of JPEG file (its %zu bytes end %s; no EOI marker)", size,
                      scan);
}
