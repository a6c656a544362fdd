/* core/jpeg_markers.h: a JPEG's marker structure, walked without decoding
 * (private; core/jpeg_markers.c).
 *
 * The walk follows SOI, the marker segments by their lengths and each scan's
 * entropy-coded data (where 0xFF is followed by 0x00, a restart marker or fill
 * bytes) up to the first EOI reached that way. A decoder that does not report
 * a missing EOI itself (nvJPEG decodes a truncated file without an error) is
 * handed only files the walk completes. */
#ifndef AUG_CORE_JPEG_MARKERS_H
#define AUG_CORE_JPEG_MARKERS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Where the walk stopped. */
typedef enum aug__jpeg_end {
    AUG__JPEG_END_EOI,        /* at an EOI marker reached through the structure: complete */
    AUG__JPEG_END_NO_SOI,     /* the data does not start with SOI (FF D8) */
    AUG__JPEG_END_IN_SEGMENT, /* the data ends inside a marker segment (its length or its bytes) */
    AUG__JPEG_END_IN_SCAN,    /* the data ends inside a scan's entropy-coded data */
    AUG__JPEG_END_AT_MARKER,  /* the data ends between segments, before a marker or inside one */
    AUG__JPEG_END_BAD_LENGTH  /* a marker segment's length is below 2 */
} aug__jpeg_end;

typedef struct aug__jpeg_walk {
    aug__jpeg_end end;
    size_t at;   /* END_EOI: the offset just past EOI; END_BAD_LENGTH: the segment's marker; else size */
    int scans;   /* SOS segments passed */
    int frame;   /* the code of the first SOFn marker passed (0xC0..0xCF but DHT, JPG, DAC), or 0 */
} aug__jpeg_walk;

/* A frame whose decode keeps every coefficient of the image in memory and reads
 * the data once per scan: progressive (SOF2, 6, 10, 14) or arithmetic-coded
 * (SOF9..15) multi-scan files. */
#define AUG__JPEG_MULTISCAN(frame) \
    ((frame) == 0xC2 || (frame) == 0xC6 || ((frame) >= 0xC9 && (frame) <= 0xCF && (frame) != 0xCC))

/* Walks data[0, size) (data may be NULL when size is 0). Bytes after the EOI
 * are not read (libjpeg ignores them too); stray bytes between segments are
 * skipped up to the next 0xFF, as libjpeg's marker reader does (it warns). */
AUG__HIDDEN aug__jpeg_walk aug__jpeg_walk_markers(const uint8_t *data, size_t size);

/* The frame marker's code (aug__jpeg_walk.frame) from the segments before the
 * first scan alone (the header: cheap), or 0. */
AUG__HIDDEN int aug__jpeg_frame(const uint8_t *data, size_t size);

/* AUG_OK when the walk reaches EOI; otherwise AUG_ERR_JPEG, the message naming
 * func in libjpeg-turbo's words ("Premature end of JPEG file") and where the
 * data ended. */
AUG__HIDDEN aug_status aug__jpeg_check_complete(const char *func, const void *data, size_t size);

#endif
