/* core/error.c: the thread-local error message and status (semantics §15).
 *
 * The message is kept as "func: detail" (aug_last_error) with the split point
 * remembered, so a binding can put its own function name in front of the
 * detail (aug_last_error_function / aug_last_error_detail). */
#include <stdarg.h>
#include <stdio.h>
#include "error.h"

static _Thread_local char tls_message[1024];
static _Thread_local char tls_function[128];
static _Thread_local size_t tls_detail; /* offset of the detail in tls_message */
static _Thread_local aug_status tls_status = AUG_OK;
static _Thread_local unsigned tls_serial; /* errors recorded by this thread */

aug_status aug__verror(aug_status st, const char *func, const char *fmt, va_list ap) {
    snprintf(tls_function, sizeof tls_function, "%s", func ? func : "aug");
    int n = snprintf(tls_message, sizeof tls_message, "%s: ", tls_function);
    if (n < 0 || (size_t)n >= sizeof tls_message) n = 0;
    tls_detail = (size_t)n;
    vsnprintf(tls_message + n, sizeof tls_message - (size_t)n, fmt, ap);
    tls_status = st;
    tls_serial++;
    return st;
}

unsigned aug__error_serial(void) { return tls_serial; }

aug_status aug__error(aug_status st, const char *func, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    aug__verror(st, func, fmt, ap);
    va_end(ap);
    return st;
}

const char *aug_last_error(void) { return tls_message; }
const char *aug_last_error_function(void) { return tls_function; }
const char *aug_last_error_detail(void) { return tls_message + tls_detail; }
aug_status aug_last_status(void) { return tls_status; }

void aug_clear_error(void) {
    tls_message[0] = '\0';
    tls_function[0] = '\0';
    tls_detail = 0;
    tls_status = AUG_OK;
}

const char *aug_version(void) {
#ifdef AUG_VERSION_STRING
    return AUG_VERSION_STRING;
#else
    return "0.0.0";
#endif
}
