/* core/broadcast.c: NumPy broadcasting of shapes (semantics §5) and shape formatting.
 *
 * Shapes align at the trailing dimension; each pair of extents must be equal or
 * one of them 1; missing leading dimensions count as 1. Zero extents broadcast
 * like any other (a 0 meets 0 or 1), so results may be empty. */
#include <stdio.h>
#include "tensor_impl.h"

char *aug_shape_str(int ndim, const int64_t *shape, char *buf, size_t len) {
    if (!buf || len == 0) return buf;
    if (ndim < 0 || (ndim > 0 && !shape)) ndim = 0;
    size_t pos = 0;
    int n = snprintf(buf, len, "(");
    if (n > 0) pos = (size_t)n;
    for (int d = 0; d < ndim && pos < len; d++) {
        n = snprintf(buf + pos, len - pos, d ? ", %lld" : "%lld", (long long)shape[d]);
        if (n < 0) break;
        pos += (size_t)n;
    }
    if (pos < len) snprintf(buf + pos, len - pos, ndim == 1 ? ",)" : ")");
    return buf;
}

static aug_status check_shape_arg(const char *func, int n, const int64_t *s) {
    if (n < 0 || n > AUG_MAX_DIMS)
        return aug__error(AUG_ERR_VALUE, func, "ndim %d is out of range (0 to %d)", n, AUG_MAX_DIMS);
    if (n > 0 && !s) return aug__error(AUG_ERR_VALUE, func, "shape is NULL");
    for (int d = 0; d < n; d++)
        if (s[d] < 0) {
            char b[256];
            return aug__error(AUG_ERR_VALUE, func, "negative extent %lld in shape %s", (long long)s[d],
                              aug_shape_str(n, s, b, sizeof b));
        }
    return AUG_OK;
}

aug_status aug_broadcast_shapes(const char *func, int na, const int64_t *a, int nb, const int64_t *b,
                                int *out_ndim, int64_t *out_shape) {
    if (!func) func = "aug_broadcast_shapes";
    if (!out_ndim || !out_shape) return aug__error(AUG_ERR_VALUE, func, "output pointer is NULL");
    aug_status st = check_shape_arg(func, na, a);
    if (st == AUG_OK) st = check_shape_arg(func, nb, b);
    if (st != AUG_OK) return st;
    int n = na > nb ? na : nb;
    int64_t res[AUG_MAX_DIMS];
    for (int k = 1; k <= n; k++) { /* k-th dimension from the back */
        int64_t ea = k <= na ? a[na - k] : 1, eb = k <= nb ? b[nb - k] : 1;
        if (ea == eb || eb == 1)
            res[n - k] = ea;
        else if (ea == 1)
            res[n - k] = eb;
        else {
            char sa[256], sb[256];
            return aug__error(AUG_ERR_VALUE, func, "cannot broadcast shapes %s and %s",
                              aug_shape_str(na, a, sa, sizeof sa), aug_shape_str(nb, b, sb, sizeof sb));
        }
    }
    for (int d = 0; d < n; d++) out_shape[d] = res[d];
    *out_ndim = n;
    return AUG_OK;
}

aug_status aug__check_broadcast_to(const char *func, int sn, const int64_t *s, int dn, const int64_t *d) {
    int ok = sn <= dn;
    for (int k = 1; ok && k <= sn; k++) ok = s[sn - k] == 1 || s[sn - k] == d[dn - k];
    if (ok) return AUG_OK;
    char a[256], b[256];
    return aug__error(AUG_ERR_VALUE, func, "cannot broadcast shape %s to %s", aug_shape_str(sn, s, a, sizeof a),
                      aug_shape_str(dn, d, b, sizeof b));
}
