/* codec/poll.c: interrupt polling between a codec's units of work (codec/poll.h). */
#include "codec/poll.h"

#include <time.h>

/* The coarse clock where there is one, as cpu/pool.c's poll: a few ns a read, ticks of 1-4 ms. */
static int64_t mono_ns(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0) return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void aug__poll_begin(aug__row_poll *p) {
    aug_get_interrupt_check(&p->check, &p->ctx);
    p->last = p->check != NULL ? mono_ns() : 0;
}

int aug__poll_stop(aug__row_poll *p) {
    if (p->check == NULL) return 0;
    int64_t t = mono_ns();
    if (t - p->last < AUG__POLL_NS) return 0;
    p->last = t;
    return p->check(p->ctx) != 0;
}

aug_status aug__interrupted(const char *func) {
    return aug__error(AUG_ERR_INTERRUPTED, func, "interrupted; nothing is returned");
}
