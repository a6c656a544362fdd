/* core/error.h: setting the thread-local error (private). */
#ifndef AUG_CORE_ERROR_H
#define AUG_CORE_ERROR_H

#include <stdarg.h>
#include "aug/common.h"

#define AUG__HIDDEN __attribute__((visibility("hidden")))

/* Records "func: <formatted message>" as this thread's error and returns st. */
AUG__HIDDEN aug_status aug__error(aug_status st, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

AUG__HIDDEN aug_status aug__verror(aug_status st, const char *func, const char *fmt, va_list ap);

/* How many errors this thread has recorded: a caller compares it around a call
 * to learn whether the call recorded one (storage.c, around a backend's alloc). */
AUG__HIDDEN unsigned aug__error_serial(void);

/* Shorthand for the common allocation failure. */
#define AUG__NOMEM(func) aug__error(AUG_ERR_MEMORY, (func), "out of memory")

#endif
