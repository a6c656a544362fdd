/* codec/poll.h: the interrupt polling of the codecs' long decodes (PNG rows,
 * TIFF strips and tiles): the calling thread's interrupt check
 * (aug_set_interrupt_check; augpy installs one around its decodes) runs
 * between units of work once AUG__POLL_NS have passed since the decode began
 * or the check last ran, as the CPU pool and libjpeg's progress monitor run it
 * (cpu/pool.c; the codec layer cannot include that): a row of 8192 pixels takes
 * about 0.1 ms, so a Ctrl-C waits about AUG__POLL_NS. */
#ifndef AUG_CODEC_POLL_H
#define AUG_CODEC_POLL_H

#include <stdint.h>

#include "aug/common.h"
#include "core/error.h"

#define AUG__POLL_NS 10000000

typedef struct {
    aug_interrupt_check check;
    void *ctx;
    int64_t last;
} aug__row_poll;

/* Reads the thread's check and starts the clock. */
AUG__HIDDEN void aug__poll_begin(aug__row_poll *p);
/* 1 when the check (run at most every AUG__POLL_NS) asked to stop. */
AUG__HIDDEN int aug__poll_stop(aug__row_poll *p);
/* AUG_ERR_INTERRUPTED "func: interrupted; nothing is returned". */
AUG__HIDDEN aug_status aug__interrupted(const char *func);

#endif
