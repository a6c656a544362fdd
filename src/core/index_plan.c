/* core/index_plan.c: planning NumPy indexing with index tensors (aug/index.h).
 *
 * The items are checked and the ellipsis expanded; index arrays and masks are
 * read to the host (a mask becomes its nonzero() coordinates, and a mask over
 * dimensions whose strides merge is taken as one flat mask over the merged
 * dimension); the basic items are applied as the view V with the advanced
 * dimensions kept whole; the index arrays are broadcast together and range
 * checked. The result's shape follows NumPy: with B the broadcast shape, B
 * stands where the advanced items stand when they are adjacent, in front when a
 * basic item (a slice, None or an Ellipsis, even one of no dimension) separates
 * them; ints next to index tensors count as advanced (0-d index arrays). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "index_plan.h"
#include "tensor_impl.h"

enum { E_BASIC, E_ARRAY, E_MASK };

typedef struct entry {
    int kind;
    aug_index ix;           /* E_BASIC (an ELLIPSIS entry marks where it stood) */
    const aug_tensor *src;  /* E_ARRAY, E_MASK: the index tensor */
    int64_t *vals;          /* E_ARRAY: its values as int64, C order (owned) */
    unsigned char *mask;    /* E_MASK: its bytes, C order (owned) */
    int ndim;               /* E_MASK: the dimensions it covers (1 once merged) */
    int sdim;               /* its first dimension in the source (after merged masks) */
    int axis;               /* the same in t, for messages */
} entry;

typedef struct entry_list {
    int n;
    entry e[AUG_INDEX_MAX_ITEMS + AUG_MAX_DIMS + 1];
} entry_list;

/* An index array to broadcast: values, shape, the extent of the dimension it
 * indexes and its axis in t; *own (when own is set) may be handed to the plan. */
typedef struct idx_array {
    const int64_t *v;
    int64_t **own;
    int ndim;
    int64_t shape[AUG_MAX_DIMS];
    int64_t size;
    int axis;
} idx_array;

aug_status aug__index_reraise(const char *func, aug_status st) {
    if (st == AUG_OK) st = aug_last_status();
    if (st == AUG_OK) st = AUG_ERR_RUNTIME;
    char detail[512];
    snprintf(detail, sizeof detail, "%s", aug_last_error_detail());
    return aug__error(st, func, "%s", detail);
}

static int64_t numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* ---- reading index tensors ---------------------------------------------------------- */

/* x's values as a new host array of int64 (C order). uint64 values beyond int64
 * are out of bounds for any axis (axis < 0: not known yet). */
static aug_status read_indices(const char *func, const aug_tensor *x, int axis, int64_t size, int64_t **out) {
    const int64_t n = aug_tensor_size(x), isz = aug_dtype_info(x->dtype)->size;
    int64_t *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    void *raw = x->dtype == AUG_INT64 ? (void *)v : malloc((size_t)(n > 0 ? n * isz : 1));
    aug_status st = v && raw ? aug_tensor_read(x, raw, (size_t)(n * isz), 1) : AUG__NOMEM(func);
    if (st != AUG_OK && v && raw) st = aug__index_reraise(func, st);
    for (int64_t j = 0; st == AUG_OK && x->dtype == AUG_UINT64 && j < n; j++) {
        unsigned long long u = ((const uint64_t *)raw)[j];
        if (u <= (uint64_t)INT64_MAX) continue;
        st = axis < 0 ? aug__error(AUG_ERR_INDEX, func, "index %llu is out of bounds", u)
                      : aug__error(AUG_ERR_INDEX, func, "index %llu is out of bounds for axis %d with size %lld", u,
                                   axis, (long long)size);
    }
    if (st == AUG_OK && raw != (void *)v) st = aug_cast_run(raw, isz, x->dtype, v, 8, AUG_INT64, n);
    if (raw != (void *)v) free(raw);
    if (st != AUG_OK) {
        free(v);
        return st;
    }
    *out = v;
    return AUG_OK;
}

/* A TENSOR item as an entry: an index array, a mask, or (0-d integer) an int. */
static aug_status classify_tensor(const char *func, const aug_tensor *x, int k, entry *e) {
    if (!x) return aug__error(AUG_ERR_VALUE, func, "item %d is an index tensor but its tensor is NULL", k);
    aug_status st = aug__tensor_check(func, x);
    if (st != AUG_OK) return st;
    aug_kind kind = aug_dtype_info(x->dtype)->kind;
    if (kind == AUG_KIND_FLOAT)
        return aug__error(AUG_ERR_INDEX, func, "arrays used as indices must be of integer (or boolean) type, got %s",
                          aug_dtype_name(x->dtype));
    e->src = x;
    if (kind == AUG_KIND_BOOL) {
        if (x->ndim == 0) return aug__error(AUG_ERR_INDEX, func, "a 0-d boolean index is not supported");
        e->kind = E_MASK;
        e->ndim = x->ndim;
        return AUG_OK;
    }
    if (x->ndim > 0) {
        e->kind = E_ARRAY;
        return AUG_OK;
    }
    int64_t *v = NULL; /* a 0-d integer array is an int (NumPy) */
    if ((st = read_indices(func, x, -1, 0, &v)) != AUG_OK) return st;
    e->kind = E_BASIC;
    e->ix.kind = AUG_INDEX_INT;
    e->ix.i = v[0];
    free(v);
    return AUG_OK;
}

/* ---- the items ---------------------------------------------------------------------- */

/* items -> tmp[0 .. n-1], with the ellipsis's position, the dimensions consumed and
 * whether an index tensor is present. */
static aug_status classify(const char *func, const aug_tensor *t, int n, const aug_index_item *items, entry *tmp,
                           int *ellipsis, int *has_array) {
    int consumed = 0;
    *ellipsis = -1;
    *has_array = 0;
    for (int k = 0; k < n; k++) {
        const aug_index_item *it = &items[k];
        entry *e = &tmp[k];
        memset(e, 0, sizeof *e);
        if (it->kind == AUG_INDEX_TENSOR) {
            aug_status st = classify_tensor(func, it->tensor, k, e);
            if (st != AUG_OK) return st;
        } else {
            e->ix = (aug_index){it->kind, it->i, it->start, it->stop, it->step, it->has_start, it->has_stop};
        }
        if (e->kind != E_BASIC) {
            *has_array = 1;
            consumed += e->kind == E_MASK ? e->ndim : 1;
            continue;
        }
        switch (e->ix.kind) {
        case AUG_INDEX_INT:
        case AUG_INDEX_SLICE: consumed++; break;
        case AUG_INDEX_NEWAXIS: break;
        case AUG_INDEX_ELLIPSIS:
            if (*ellipsis >= 0)
                return aug__error(AUG_ERR_INDEX, func, "an index can only have a single ellipsis ('...')");
            *ellipsis = k;
            break;
        default: return aug__error(AUG_ERR_VALUE, func, "invalid index kind %d at position %d", (int)e->ix.kind, k);
        }
    }
    if (consumed > t->ndim)
        return aug__error(AUG_ERR_INDEX, func,
                          "too many indices for tensor: tensor is %d-dimensional, but %d were indexed", t->ndim,
                          consumed);
    return AUG_OK;
}

/* tmp[0 .. m-1] into L with the ellipsis (or the end) expanded to full slices,
 * and each entry's first dimension. The ellipsis stays as a marker entry. */
static void expand(const aug_tensor *t, const entry *tmp, int m, int ellipsis, entry_list *L) {
    int consumed = 0, sdim = 0;
    for (int k = 0; k < m; k++) {
        const entry *e = &tmp[k];
        if (e->kind == E_MASK) consumed += e->ndim;
        else if (e->kind == E_ARRAY || e->ix.kind == AUG_INDEX_INT || e->ix.kind == AUG_INDEX_SLICE) consumed++;
    }
    L->n = 0;
    for (int k = 0; k <= m; k++) {
        if (k == ellipsis) L->e[L->n++] = tmp[k];
        if (k == (ellipsis >= 0 ? ellipsis : m)) {
            for (int p = 0; p < t->ndim - consumed; p++) {
                entry *e = &L->e[L->n++];
                memset(e, 0, sizeof *e);
                e->ix = (aug_index){.kind = AUG_INDEX_SLICE, .step = 1};
                e->sdim = e->axis = sdim++;
            }
        }
        if (k == m || k == ellipsis) continue;
        entry *e = &L->e[L->n++];
        *e = tmp[k];
        e->sdim = e->axis = sdim;
        if (e->kind == E_MASK) sdim += e->ndim;
        else if (e->kind == E_ARRAY || e->ix.kind != AUG_INDEX_NEWAXIS) sdim++;
    }
}

/* The index arrays and masks read to the host; mask shapes checked against t. */
static aug_status read_entries(const char *func, const aug_tensor *t, entry_list *L) {
    for (int i = 0; i < L->n; i++) {
        entry *e = &L->e[i];
        if (e->kind == E_ARRAY) {
            aug_status st = read_indices(func, e->src, e->axis, t->shape[e->axis], &e->vals);
            if (st != AUG_OK) return st;
        }
        if (e->kind != E_MASK) continue;
        for (int d = 0; d < e->ndim; d++) {
            int64_t md = e->src->shape[d], sd = t->shape[e->axis + d];
            if (md != sd)
                return aug__error(AUG_ERR_INDEX, func,
                                  "boolean index did not match indexed tensor along axis %d; size of axis is %lld "
                                  "but size of corresponding boolean axis is %lld",
                                  e->axis + d, (long long)sd, (long long)md);
        }
        const int64_t n = aug_tensor_size(e->src);
        if (!(e->mask = malloc((size_t)(n > 0 ? n : 1)))) return AUG__NOMEM(func);
        aug_status st = aug_tensor_read(e->src, e->mask, (size_t)n, 1);
        if (st != AUG_OK) return aug__index_reraise(func, st);
    }
    return AUG_OK;
}

static void entries_free(entry_list *L) {
    for (int i = 0; i < L->n; i++) {
        free(L->e[i].vals);
        free(L->e[i].mask);
    }
    L->n = 0;
}

/* ---- masks -------------------------------------------------------------------------- */

/* A view of t with dims [d, d + k) merged into one, or NULL (no error) when their
 * strides do not allow it. */
static aug_tensor *merge_dims(const aug_tensor *t, int d, int k) {
    for (int i = d; i < d + k - 1; i++)
        if (t->strides[i] != t->strides[i + 1] * t->shape[i + 1]) return NULL;
    aug_tensor *v = aug_tensor_view(t);
    if (!v) return NULL;
    v->shape[d] = numel(k, t->shape + d);
    v->strides[d] = t->strides[d + k - 1];
    for (int i = d + k; i < t->ndim; i++) {
        v->shape[i - k + 1] = t->shape[i];
        v->strides[i - k + 1] = t->strides[i];
    }
    v->ndim = t->ndim - k + 1;
    memset(v->layout, 0, sizeof v->layout);
    return v;
}

/* *src = t with the dimensions of each multi-dimensional mask merged where the
 * strides allow (the mask, read in C order, is then one flat mask). New view. */
static aug_status merge_masks(const char *func, const aug_tensor *t, entry_list *L, aug_tensor **src) {
    if (!(*src = aug_tensor_view(t))) return aug__index_reraise(func, AUG_OK);
    int shift = 0;
    for (int i = 0; i < L->n; i++) {
        entry *e = &L->e[i];
        e->sdim -= shift;
        if (e->kind != E_MASK || e->ndim < 2) continue;
        aug_tensor *mv = merge_dims(*src, e->sdim, e->ndim);
        if (!mv) continue;
        aug_tensor_free(*src);
        *src = mv;
        shift += e->ndim - 1;
        e->ndim = 1;
    }
    return AUG_OK;
}

/* The coordinates of a mask's true entries over src's dims [sdim, sdim + ndim),
 * one new array per dimension (NumPy's nonzero), into nz[] and arr[]. Branchless:
 * every entry's coordinates are written at the next free slot, which only a true
 * entry keeps (so the arrays have one spare slot; random masks mispredict). */
static aug_status nonzero(const char *func, const entry *e, const aug_tensor *src, idx_array *arr, int64_t **nz) {
    const int k = e->ndim;
    const int64_t *shape = src->shape + e->sdim, n = numel(k, shape);
    const unsigned char *m = e->mask;
    int64_t count = 0;
    for (int64_t f = 0; f < n; f++) count += m[f] != 0;
    for (int d = 0; d < k; d++) {
        if (!(nz[d] = malloc((size_t)(count + 1) * sizeof(int64_t)))) return AUG__NOMEM(func);
        arr[d] = (idx_array){.v = nz[d], .own = &nz[d], .ndim = 1, .shape = {count}};
    }
    int64_t j = 0, *last = nz[k - 1];
    if (k == 1) {
        for (int64_t f = 0; f < n; f++) {
            last[j] = f;
            j += m[f] != 0;
        }
        return AUG_OK;
    }
    const int64_t inner = shape[k - 1];
    int64_t c[AUG_MAX_DIMS] = {0};
    for (int64_t f = 0; f < n; f += inner) { /* one run of the last dimension at a time */
        for (int64_t x = 0; x < inner; x++) {
            for (int d = 0; d < k - 1; d++) nz[d][j] = c[d];
            last[j] = x;
            j += m[f + x] != 0;
        }
        for (int d = k - 2; d >= 0 && ++c[d] == shape[d]; d--) c[d] = 0;
    }
    return AUG_OK;
}

/* ---- the advanced plan ------------------------------------------------------------- */

/* The basic items of V (vix), the index arrays (arr) with their dimensions in V,
 * and whether a basic item separates two advanced ones. */
static aug_status collect(const char *func, entry_list *L, const aug_tensor *src, aug__index_plan *P, aug_index *vix,
                          int *nv, idx_array *arr, int *narr, int64_t **nz, int *separated) {
    int vdim = 0, last = -1;
    *nv = *narr = *separated = 0;
    for (int i = 0; i < L->n; i++) {
        entry *e = &L->e[i];
        if (e->kind == E_BASIC && e->ix.kind != AUG_INDEX_INT) { /* ints are advanced next to arrays */
            if (e->ix.kind == AUG_INDEX_ELLIPSIS) continue;
            vix[(*nv)++] = e->ix;
            vdim++;
            continue;
        }
        if (last >= 0 && last != i - 1) *separated = 1;
        last = i;
        int k = e->kind == E_MASK ? e->ndim : 1;
        idx_array *a = &arr[*narr];
        if (e->kind == E_MASK) {
            aug_status st = nonzero(func, e, src, a, nz + *narr);
            if (st != AUG_OK) return st;
        } else if (e->kind == E_ARRAY) {
            *a = (idx_array){.v = e->vals, .own = &e->vals, .ndim = e->src->ndim};
            memcpy(a->shape, e->src->shape, sizeof a->shape);
        } else {
            *a = (idx_array){.v = &e->ix.i, .ndim = 0};
        }
        for (int d = 0; d < k; d++) {
            vix[(*nv)++] = (aug_index){.kind = AUG_INDEX_SLICE, .step = 1};
            P->advdim[*narr + d] = vdim++;
            a[d].size = src->shape[e->sdim + d];
            a[d].axis = e->axis + d;
        }
        *narr += k;
    }
    return AUG_OK;
}

/* a broadcast to the plan's B: its values in C order of B. */
static void broadcast_copy(const idx_array *a, const aug__index_plan *P, int64_t *dst) {
    int64_t st[AUG_MAX_DIMS] = {0}, c[AUG_MAX_DIMS] = {0}, s = 1, off = 0;
    for (int d = a->ndim - 1; d >= 0; d--) {
        st[P->nb - a->ndim + d] = a->shape[d] == 1 ? 0 : s;
        s *= a->shape[d];
    }
    for (int64_t j = 0; j < P->nB; j++) {
        dst[j] = a->v[off];
        for (int d = P->nb - 1; d >= 0; d--) {
            off += st[d];
            if (++c[d] < P->B[d]) break;
            off -= st[d] * c[d];
            c[d] = 0;
        }
    }
}

/* B, the range checks, and the index arrays broadcast to B. */
static aug_status broadcast(const char *func, idx_array *arr, int narr, aug__index_plan *P) {
    P->nb = 0;
    for (int i = 0; i < narr; i++) {
        int64_t prev[AUG_MAX_DIMS];
        memcpy(prev, P->B, sizeof prev);
        if (aug_broadcast_shapes(func, P->nb, prev, arr[i].ndim, arr[i].shape, &P->nb, P->B) == AUG_OK) continue;
        char msg[512] = "", s[192];
        for (int j = 0; j < narr; j++) {
            size_t len = strlen(msg);
            snprintf(msg + len, sizeof msg - len, "%s%s", j ? " " : "", aug_shape_str(arr[j].ndim, arr[j].shape, s, sizeof s));
        }
        return aug__error(AUG_ERR_INDEX, func,
                          "shape mismatch: indexing arrays could not be broadcast together with shapes %s", msg);
    }
    P->nB = numel(P->nb, P->B);
    for (int i = 0; i < narr; i++) {
        const int64_t n = numel(arr[i].ndim, arr[i].shape), size = arr[i].size;
        for (int64_t j = 0; j < n; j++)
            if (arr[i].v[j] < -size || arr[i].v[j] >= size)
                return aug__error(AUG_ERR_INDEX, func, "index %lld is out of bounds for axis %d with size %lld",
                                  (long long)arr[i].v[j], arr[i].axis, (long long)size);
    }
    for (int i = 0; i < narr; i++) {
        int same = arr[i].ndim == P->nb && arr[i].own;
        for (int d = 0; same && d < P->nb; d++) same = arr[i].shape[d] == P->B[d];
        if (same) { /* taken over as it is */
            P->idx[i] = P->owned[P->nowned++] = *arr[i].own;
            *arr[i].own = NULL;
            continue;
        }
        int64_t *b = malloc((size_t)(P->nB > 0 ? P->nB : 1) * sizeof *b);
        if (!b) return AUG__NOMEM(func);
        broadcast_copy(&arr[i], P, b);
        P->idx[i] = P->owned[P->nowned++] = b;
    }
    P->nadv = narr;
    return AUG_OK;
}

/* The result's shape (B at p) and the permutation to (B, rest). */
static aug_status place(const char *func, aug__index_plan *P, int separated) {
    int isadv[AUG_MAX_DIMS] = {0};
    int64_t rest[AUG_MAX_DIMS];
    for (int i = 0; i < P->nadv; i++) isadv[P->advdim[i]] = 1;
    P->nrest = 0;
    P->p = -1;
    for (int d = 0; d < P->V->ndim; d++) {
        if (!isadv[d]) rest[P->nrest++] = P->V->shape[d];
        else if (P->p < 0) P->p = P->nrest;
    }
    if (separated) P->p = 0;
    P->out_ndim = P->nrest + P->nb;
    if (P->out_ndim > AUG_MAX_DIMS)
        return aug__error(AUG_ERR_INDEX, func, "the result would have %d dimensions (at most %d are supported)",
                          P->out_ndim, AUG_MAX_DIMS);
    for (int d = 0, r = 0; d < P->out_ndim; d++)
        P->out_shape[d] = d >= P->p && d < P->p + P->nb ? P->B[d - P->p] : rest[r++];
    int k = 0;
    for (int d = 0; d < P->nb; d++) P->perm[k++] = P->p + d;
    for (int d = 0; d < P->out_ndim; d++)
        if (d < P->p || d >= P->p + P->nb) P->perm[k++] = d;
    return AUG_OK;
}

static aug_status plan_advanced(const char *func, const aug_tensor *t, entry_list *L, aug__index_plan *P) {
    aug_tensor *src = NULL;
    aug_index vix[AUG_INDEX_MAX_ITEMS + 2 * AUG_MAX_DIMS];
    idx_array arr[AUG_MAX_DIMS];
    int64_t *nz[AUG_MAX_DIMS] = {0};
    int nv, narr, separated;
    P->advanced = 1;
    aug_status st = read_entries(func, t, L);
    if (st == AUG_OK) st = merge_masks(func, t, L, &src);
    if (st == AUG_OK) st = collect(func, L, src, P, vix, &nv, arr, &narr, nz, &separated);
    if (st == AUG_OK && !(P->V = aug_tensor_index(src, nv, vix))) st = aug__index_reraise(func, AUG_OK);
    if (st == AUG_OK) st = broadcast(func, arr, narr, P);
    if (st == AUG_OK) st = place(func, P, separated);
    for (int d = 0; d < AUG_MAX_DIMS; d++) free(nz[d]);
    aug_tensor_free(src);
    return st;
}

aug_status aug__index_plan_build(const char *func, const aug_tensor *t, int n, const aug_index_item *items,
                                 aug__index_plan *P) {
    memset(P, 0, sizeof *P);
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "number of items %d is negative", n);
    if (n > 0 && !items) return aug__error(AUG_ERR_VALUE, func, "items is NULL");
    if (n > AUG_INDEX_MAX_ITEMS) return aug__error(AUG_ERR_INDEX, func, "too many indices (%d)", n);
    entry tmp[AUG_INDEX_MAX_ITEMS];
    int ellipsis, has_array;
    if ((st = classify(func, t, n, items, tmp, &ellipsis, &has_array)) != AUG_OK) return st;
    if (!has_array) { /* basic indexing: a view */
        aug_index ix[AUG_INDEX_MAX_ITEMS];
        for (int k = 0; k < n; k++) ix[k] = tmp[k].ix;
        if (!(P->V = aug_tensor_index(t, n, ix))) return aug__index_reraise(func, AUG_OK);
        return AUG_OK;
    }
    entry_list L;
    expand(t, tmp, n, ellipsis, &L);
    st = plan_advanced(func, t, &L, P);
    entries_free(&L);
    if (st != AUG_OK) aug__index_plan_free(P);
    return st;
}

void aug__index_plan_free(aug__index_plan *P) {
    for (int i = 0; i < P->nowned; i++) free(P->owned[i]);
    aug_tensor_free(P->V);
    memset(P, 0, sizeof *P);
}
