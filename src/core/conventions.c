/* core/conventions.c: the shared conventions of image ops (aug/conventions.h):
 * the interpolation names and the layout check, and the private check that an
 * op supports an interpolation mode (core/conventions.h). */
#include <string.h>
#include <strings.h>
#include "aug/conventions.h"
#include "conventions.h"
#include "error.h"

static const struct {
    const char *name;
    aug_interp mode;
} INTERP_NAMES[] = {{"linear", AUG_INTERP_LINEAR},         {"nearest", AUG_INTERP_NEAREST},
                    {"area", AUG_INTERP_AREA},             {"bilinear", AUG_INTERP_LINEAR},
                    {"inter_linear", AUG_INTERP_LINEAR},   {"inter_nearest", AUG_INTERP_NEAREST},
                    {"inter_area", AUG_INTERP_AREA},       {"cubic", AUG_INTERP_CUBIC},
                    {"bicubic", AUG_INTERP_CUBIC},         {"inter_cubic", AUG_INTERP_CUBIC}};

aug_status aug_interp_from_name(const char *func, const char *name, aug_interp *out) {
    if (!func) func = "aug_interp_from_name";
    if (!name || !out) return aug__error(AUG_ERR_VALUE, func, "%s is NULL", name ? "out" : "interpolation");
    for (size_t i = 0; i < sizeof INTERP_NAMES / sizeof INTERP_NAMES[0]; i++)
        if (!strcasecmp(name, INTERP_NAMES[i].name)) {
            *out = INTERP_NAMES[i].mode;
            return AUG_OK;
        }
    return aug__error(AUG_ERR_VALUE, func, "unknown interpolation '%.40s' (expected 'linear', 'nearest', 'area' or 'cubic')",
                      name);
}

const char *aug_interp_name(aug_interp interp) {
    switch (interp) {
    case AUG_INTERP_LINEAR: return "linear";
    case AUG_INTERP_NEAREST: return "nearest";
    case AUG_INTERP_AREA: return "area";
    case AUG_INTERP_CUBIC: return "cubic";
    }
    return NULL;
}

aug_status aug__interp_check(const char *func, aug_interp interp, unsigned modes) {
    const char *name = aug_interp_name(interp);
    if (name && (modes >> interp & 1u)) return AUG_OK;
    char list[40] = "";
    for (unsigned m = 0; m <= AUG_INTERP_CUBIC; m++)
        if (modes >> m & 1u) {
            if (list[0]) strcat(list, ", ");
            strcat(list, aug_interp_name((aug_interp)m));
        }
    if (!name) return aug__error(AUG_ERR_VALUE, func, "interpolation %d is not an aug_interp (%s)", (int)interp, list);
    return aug__error(AUG_ERR_VALUE, func, "interpolation '%s' is not supported (%s)", name, list);
}

aug_status aug_layout_check(const char *func, const char *what, const char *layout, const char *supported) {
    if (!func) func = "aug_layout_check";
    if (!what) what = "layout";
    if (!layout || !layout[0]) return AUG_OK;
    if (!supported) return aug__error(AUG_ERR_VALUE, func, "supported is NULL");
    size_t len = strlen(layout);
    for (const char *p = supported; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, layout, n)) return AUG_OK;
        p += n + (end != NULL);
    }
    char list[64] = "";
    size_t k = 0;
    for (const char *p = supported; *p && k + 3 < sizeof list; p++) {
        if (*p == ',') {
            list[k++] = ',';
            list[k++] = ' ';
        } else
            list[k++] = *p;
    }
    list[k] = '\0';
    return aug__error(AUG_ERR_VALUE, func, "%s '%.16s' is not supported (%s)", what, layout, list);
}
