/* core/promote.c: result dtypes, type rules and compute types of elementwise ops
 * (semantics §6-§9; the ctype contract of cpu/kernels.h).
 *
 * Result dtype: the promotion table folded left to right over the operands, weak
 * scalars (Python numbers) first resolved against the promotion of the typed
 * operands (aug_scalar_result_dtype); then per op class (promote.h).
 *
 * Compute types ("exact, then saturate once"):
 *  - integer result R: every operand's value fits R losslessly (a weak int whose
 *    value R holds counts and is stored as R) -> ctype R, whose kernels saturate;
 *    otherwise AUG__I128 with the exact values, saturated by the engine's store.
 *  - float result R: FLOAT64 when R is float64 or an integral operand does not fit
 *    float32 exactly (int32/uint32/int64/uint64 or a large scalar), else FLOAT32.
 *    Float FLOORDIV and MOD are NumPy's floor_divide / remainder in R whatever
 *    the operands: every operand rounded to R first (IEEE), then the rule in R's
 *    ctype (FLOAT32 for float16/bfloat16, as NumPy's half loops).
 *    Weak scalars are first rounded to their resolved float dtype (NEP 50).
 *    For true division of small integers FLOAT32 gives the same correctly rounded
 *    quotient as FLOAT64 (double rounding is innocuous for 53 >= 2 * 24 + 2).
 *  - comparisons: both values exactly, in the narrowest ctype that holds both
 *    (same dtype -> that ctype; integers -> their promotion or AUG__I128; int vs
 *    float -> a float ctype that holds the integer, else (AUG__I128, FLOAT64)).
 *    Weak scalars compare with their exact value, except that a weak float next
 *    to a float tensor is first rounded to the tensor's dtype (NEP 50, NumPy 2).
 *  - bitwise and shifts: on the exact operand values (two's complement, sign-
 *    extended without end), saturated once: ctype R when every operand's value
 *    fits R, else AUG__I128. A shift of an unsigned R by a negative scalar count
 *    becomes the opposite shift by its magnitude (so the count fits R).
 *  - fma: the temp type of promote(t1, t2) for everything, the scalar exact; a tensor
 *    coefficient (aug_fma_operands) joins the promotion.
 *  - where(cond, x, y): x and y saturate-cast to R, cond read as bool (!= 0).
 * float16/bfloat16 ctypes are FLOAT32 everywhere. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include "promote.h"
#include "tensor_impl.h"

/* The ops DALI allows on all-bool operands (semantics §7). */
static int bool_allowed(aug_op op) {
    static const unsigned char allowed[AUG_NUM_OPS] = {
#define X_(e, sym, arity, name, cls, fam, b, py) b,
        AUG_OP_LIST(X_)
#undef X_
    };
    return (int)op >= 0 && op < AUG_NUM_OPS && allowed[op];
}

/* ---- dtype facts ---------------------------------------------------------------- */

static aug_kind kind_of(aug_dtype t) { return aug_dtype_info(t)->kind; }
static int is_float(aug_dtype t) { return kind_of(t) == AUG_KIND_FLOAT; }
static int ctype_of(aug_dtype t) { return (t == AUG_FLOAT16 || t == AUG_BFLOAT16) ? (int)AUG_FLOAT32 : (int)t; }

/* Value bits of an integral dtype (sign excluded); significand digits of a float. */
static int value_bits(aug_dtype t) {
    const aug_dtype_traits *tr = aug_dtype_info(t);
    switch (tr->kind) {
    case AUG_KIND_BOOL: return 1;
    case AUG_KIND_INT: return 8 * tr->size - 1;
    case AUG_KIND_UINT: return 8 * tr->size;
    default: return t == AUG_FLOAT16 ? 11 : t == AUG_BFLOAT16 ? 8 : t == AUG_FLOAT32 ? 24 : 53;
    }
}

/* 1 if every value of dtype d is exactly representable in ctype c. */
static int lossless(aug_dtype d, int c) {
    if ((int)d == c) return 1;
    aug_kind kd = kind_of(d);
    if (c == AUG__I128) return kd != AUG_KIND_FLOAT;
    aug_dtype ct = (aug_dtype)c;
    aug_kind kc = kind_of(ct);
    if (kc == AUG_KIND_BOOL) return 0;
    if (kc == AUG_KIND_FLOAT) {
        if (kd == AUG_KIND_FLOAT) /* f16, bf16 -> f32 -> f64; f16 and bf16 do not nest */
            return ct == AUG_FLOAT64 || (ct == AUG_FLOAT32 && (d == AUG_FLOAT16 || d == AUG_BFLOAT16));
        return value_bits(d) <= value_bits(ct);
    }
    if (kd == AUG_KIND_FLOAT) return 0;
    if (kd == AUG_KIND_BOOL) return 1;
    const aug_dtype_traits *td = aug_dtype_info(d), *tc = aug_dtype_info(ct);
    return td->imin >= tc->imin && td->umax <= tc->umax;
}

/* The exact value of a scalar as an integer or a double. */
static void scalar_exact(const aug_scalar *s, aug__i128 *iv, double *fv, int *isf) {
    *iv = 0;
    *fv = 0.0;
    *isf = 0;
    switch (kind_of(s->dtype)) {
    case AUG_KIND_FLOAT: *fv = s->v.f; *isf = 1; break;
    case AUG_KIND_UINT: *iv = (aug__i128)s->v.u; break;
    default: *iv = (aug__i128)s->v.i; break;
    }
}

/* 1 if dtype d holds the scalar's value exactly (NaN counts as held by floats). */
static int scalar_fits(const aug_scalar *s, aug_dtype d) {
    _Alignas(16) unsigned char buf[16];
    memset(buf, 0, sizeof buf);
    if (aug_scalar_store(s, d, buf) != AUG_OK) return 0;
    aug__i128 si, li;
    double sf, lf;
    int sisf, lisf;
    scalar_exact(s, &si, &sf, &sisf);
    lisf = aug__load_wide(buf, (int)d, &li, &lf);
    if (!sisf && !lisf) return si == li;
    if (sisf && lisf) return sf == lf || (isnan(sf) && isnan(lf));
    return sisf ? aug__cmp_i128_f64(li, sf) == 0 : aug__cmp_i128_f64(si, lf) == 0;
}

/* ---- operand analysis ------------------------------------------------------------- */

typedef struct opinfo {
    int tensor;    /* 1: a tensor operand */
    int weak;      /* 1: a weak scalar */
    aug_dtype dt;  /* the tensor's or scalar's own dtype */
    aug_dtype eff; /* the dtype it promotes as */
} opinfo;

/* Fills o[] and returns the promotion of all operands (AUTO if none is typed,
 * unless `dflt` is a dtype: then weak scalars resolve against it, as in full()). */
static aug_dtype analyse_from(int nin, const aug_operand *in, opinfo *o, aug_dtype dflt) {
    aug_dtype base = AUG_DTYPE_AUTO;
    for (int i = 0; i < nin; i++) {
        o[i].tensor = in[i].tensor != NULL;
        o[i].dt = o[i].tensor ? in[i].tensor->dtype : in[i].scalar.dtype;
        o[i].weak = !o[i].tensor && in[i].scalar.weak;
        if (!o[i].weak) base = base == AUG_DTYPE_AUTO ? o[i].dt : aug_promote(base, o[i].dt);
    }
    if (base == AUG_DTYPE_AUTO) base = dflt;
    if (base == AUG_DTYPE_AUTO) return base;
    aug_dtype p = AUG_DTYPE_AUTO;
    for (int i = 0; i < nin; i++) {
        o[i].eff = o[i].weak ? aug_scalar_result_dtype(&in[i].scalar, base) : o[i].dt;
        p = i == 0 ? o[i].eff : aug_promote(p, o[i].eff);
    }
    return p;
}

static aug_dtype analyse(int nin, const aug_operand *in, opinfo *o) {
    return analyse_from(nin, in, o, AUG_DTYPE_AUTO);
}

/* analyse() for op: WHERE promotes x and y only (two weak scalars resolve against
 * uint8, augpy's default dtype, as full() does); its condition is read as bool. */
static aug_dtype analyse_op(aug_op op, int nin, const aug_operand *in, opinfo *o) {
    if (aug__op_class_of(op) != AUG__CLASS_WHERE || nin != 3) return analyse(nin, in, o);
    aug_dtype p = analyse_from(2, in + 1, o + 1, AUG_UINT8);
    o[0].tensor = in[0].tensor != NULL;
    o[0].dt = o[0].tensor ? in[0].tensor->dtype : in[0].scalar.dtype;
    o[0].weak = !o[0].tensor && in[0].scalar.weak;
    o[0].eff = AUG_BOOL;
    return p;
}

static aug_dtype natural_result(aug__op_class cl, const opinfo *o, aug_dtype p) {
    switch (cl) {
    case AUG__CLASS_UNARY:
    case AUG__CLASS_COPY: return o[0].eff;
    case AUG__CLASS_TRUEDIV:
    case AUG__CLASS_MATH: return is_float(p) ? p : AUG_FLOAT32;
    case AUG__CLASS_CMP: return AUG_BOOL;
    case AUG__CLASS_FMA: /* the addend's dtype; a scalar addend: the multiplied tensor's */
        return o[2].tensor ? o[2].eff : o[1].tensor ? o[1].eff : o[0].eff;
    default: return p;
    }
}

static aug_status check_rules(const char *func, aug_op op, int nin, const opinfo *o) {
    aug__op_class cl = aug__op_class_of(op);
    int bitwise = cl == AUG__CLASS_BITWISE || cl == AUG__CLASS_SHIFT || op == AUG_OP_INVERT;
    int all_bool = 1;
    for (int i = 0; i < nin; i++) {
        if (bitwise && is_float(o[i].eff))
            return aug__error(AUG_ERR_TYPE, func, "Inputs to bitwise operator `%s` must be of integral type.",
                              aug_op_name(op));
        all_bool = all_bool && o[i].eff == AUG_BOOL;
    }
    if (!all_bool || bool_allowed(op)) return AUG_OK;
    if (cl == AUG__CLASS_SHIFT)
        return aug__error(AUG_ERR_TYPE, func, "Inputs to bitwise operator `%s` cannot be booleans.", aug_op_name(op));
    const char *hint = op == AUG_OP_ADD ? " Consider using bitwise operator `|`."
                       : op == AUG_OP_SUB ? " Consider using bitwise operator `^`." : "";
    return aug__error(AUG_ERR_TYPE, func, "Inputs to arithmetic operator `%s` cannot be booleans.%s",
                      aug_op_name(op), hint);
}

/* Decisions for the most common calls, two tensors of one dtype with no compute
 * override (operators) or with that dtype as the compute type (functional forms with
 * out=), depend on (op, dtype) alone: each is kept once made. state 0: not made,
 * 1: being written by one thread, 2: ready (read after an acquire). */
typedef struct same2_entry {
    _Atomic int state;
    aug_dtype result, precast[2];
    int precast_ieee, in_ctype[2], out_ctype;
    aug_op op;
} same2_entry;
static same2_entry g_same2[2][AUG_NUM_OPS][AUG_NUM_DTYPES]; /* [compute given][op][dtype] */

static same2_entry *same2_find(aug_op op, int nin, const aug_operand *in, aug_dtype compute) {
    if (nin != 2 || !in[0].tensor || !in[1].tensor || in[0].tensor->dtype != in[1].tensor->dtype ||
        (int)op < 0 || op >= AUG_NUM_OPS)
        return NULL;
    aug_dtype dt = in[0].tensor->dtype;
    if (compute != AUG_DTYPE_AUTO && compute != dt) return NULL;
    return &g_same2[compute != AUG_DTYPE_AUTO][op][dt];
}

static aug_status ew_decide(const char *func, aug_op op, int nin, const aug_operand *in, aug_dtype compute,
                            aug__ew_decision *d);

aug_status aug__ew_decide(const char *func, aug_op op, int nin, const aug_operand *in, aug_dtype compute,
                          aug__ew_decision *d) {
    same2_entry *e = same2_find(op, nin, in, compute);
    if (!e) return ew_decide(func, op, nin, in, compute, d);
    if (atomic_load_explicit(&e->state, memory_order_acquire) == 2) {
        memset(d, 0, sizeof *d);
        d->op = e->op;
        d->result = e->result;
        d->precast[0] = e->precast[0];
        d->precast[1] = e->precast[1];
        d->precast[2] = AUG_DTYPE_AUTO;
        d->precast_ieee = e->precast_ieee;
        d->in_ctype[0] = e->in_ctype[0];
        d->in_ctype[1] = e->in_ctype[1];
        d->out_ctype = e->out_ctype;
        return AUG_OK;
    }
    aug_status st = ew_decide(func, op, nin, in, compute, d);
    int expect = 0;
    if (st == AUG_OK && atomic_compare_exchange_strong(&e->state, &expect, 1)) {
        e->op = d->op;
        e->result = d->result;
        e->precast[0] = d->precast[0];
        e->precast[1] = d->precast[1];
        e->precast_ieee = d->precast_ieee;
        e->in_ctype[0] = d->in_ctype[0];
        e->in_ctype[1] = d->in_ctype[1];
        e->out_ctype = d->out_ctype;
        atomic_store_explicit(&e->state, 2, memory_order_release);
    }
    return st;
}

aug_status aug__ew_result_dtype(const char *func, aug_op op, int nin, const aug_operand *in, aug_dtype *result) {
    same2_entry *e = same2_find(op, nin, in, AUG_DTYPE_AUTO); /* a kept decision holds the result */
    if (e) { /* the decision (kept now if it was not) holds the result */
        aug__ew_decision d;
        aug_status st = aug__ew_decide(func, op, nin, in, AUG_DTYPE_AUTO, &d);
        if (st == AUG_OK) *result = d.result;
        return st;
    }
    opinfo o[AUG__MAX_INPUTS];
    aug_dtype p = analyse_op(op, nin, in, o);
    aug_status st = check_rules(func, op, nin, o);
    if (st != AUG_OK) return st;
    *result = natural_result(aug__op_class_of(op), o, p);
    return AUG_OK;
}

/* ---- compute types ------------------------------------------------------------------- */

/* x << -k == x >> k: keeps a negative scalar count meaningful for an unsigned
 * compute type, into which it would saturate to 0. */
static void flip_negative_count(const aug_operand *in, aug_dtype target, aug__ew_decision *d) {
    if (aug__op_class_of(d->op) != AUG__CLASS_SHIFT || in[1].tensor || kind_of(target) != AUG_KIND_UINT) return;
    const aug_scalar *s = &in[1].scalar;
    aug_kind k = kind_of(s->dtype);
    if (k == AUG_KIND_FLOAT ? !(s->v.f < 0) : (k == AUG_KIND_UINT || s->v.i >= 0)) return;
    d->op = d->op == AUG_OP_LSHIFT ? AUG_OP_RSHIFT : AUG_OP_LSHIFT;
    d->value[1] = k == AUG_KIND_FLOAT ? aug_scalar_float(-s->v.f) : aug_scalar_uint((uint64_t)0 - (uint64_t)s->v.i);
}

/* Comparisons: both values exactly (see the file comment). */
static void decide_cmp(const aug_operand *in, const opinfo *o, aug__ew_decision *d) {
    aug_dtype v[2];
    for (int i = 0; i < 2; i++) {
        v[i] = o[i].dt;
        if (o[i].tensor || !o[i].weak) continue;
        const opinfo *other = &o[1 - i];
        if (other->weak) continue; /* both weak cannot happen: a tensor is required */
        if (kind_of(o[i].dt) == AUG_KIND_FLOAT && is_float(other->dt))
            v[i] = other->dt; /* NEP 50: rounded to the float tensor's dtype */
        else if (scalar_fits(&in[i].scalar, other->dt))
            v[i] = other->dt;
        d->elem[i] = v[i];
    }
    int ca, cb;
    aug_kind ka = kind_of(v[0]), kb = kind_of(v[1]);
    int fa = ka == AUG_KIND_FLOAT, fb = kb == AUG_KIND_FLOAT;
    if (v[0] == v[1]) {
        ca = cb = ctype_of(v[0]);
    } else if (!fa && !fb) {
        aug_dtype p = aug_promote(v[0], v[1]);
        ca = cb = (lossless(v[0], (int)p) && lossless(v[1], (int)p)) ? (int)p : AUG__I128;
    } else if (fa && fb) {
        ca = cb = (v[0] == AUG_FLOAT64 || v[1] == AUG_FLOAT64) ? (int)AUG_FLOAT64 : (int)AUG_FLOAT32;
    } else {
        aug_dtype fd = fa ? v[0] : v[1], id = fa ? v[1] : v[0];
        int f = ctype_of(fd);
        if (lossless(id, f)) {
            ca = cb = f;
        } else if (lossless(id, AUG_FLOAT64)) {
            ca = cb = AUG_FLOAT64;
        } else {
            ca = fa ? (int)AUG_FLOAT64 : AUG__I128;
            cb = fb ? (int)AUG_FLOAT64 : AUG__I128;
        }
    }
    d->in_ctype[0] = ca;
    d->in_ctype[1] = cb;
    d->out_ctype = AUG_BOOL;
}

/* Scalar operand i rounded to the float dtype r as IEEE arithmetic does (to
 * nearest even, +-inf beyond the range); integers through double, which holds
 * them within half an ulp of r (one rounding in effect, 53 >= 2 * 24 + 2). */
static void round_scalar_to(aug__ew_decision *d, int i, aug_dtype r) {
    const aug_scalar *s = &d->value[i];
    aug_kind k = kind_of(s->dtype);
    double v = k == AUG_KIND_FLOAT ? s->v.f : k == AUG_KIND_UINT ? (double)s->v.u : (double)s->v.i;
    _Alignas(16) unsigned char buf[16];
    aug__ieee_store_f64(v, (int)r, buf);
    aug__i128 iv;
    aug__load_wide(buf, (int)r, &iv, &v);
    d->value[i] = aug_scalar_float(v);
    d->elem[i] = r;
}

/* Every other op without an override. */
static void decide_auto(const aug_operand *in, int nin, const opinfo *o, aug__ew_decision *d) {
    aug__op_class cl = aug__op_class_of(d->op);
    aug_dtype r = d->result;
    int ct;
    if (cl == AUG__CLASS_COPY) {
        ct = (int)r;
    } else if (cl == AUG__CLASS_WHERE) {
        /* A selection: x and y converted to R (weak scalars first take the dtype
         * they promote as, floats rounded as IEEE), the condition read as bool. */
        ct = ctype_of(r);
        for (int i = 1; i < nin; i++)
            if (!o[i].tensor && o[i].weak) {
                if (is_float(o[i].eff)) round_scalar_to(d, i, o[i].eff);
                else d->elem[i] = o[i].eff;
            }
        for (int i = 1; i < nin; i++) d->in_ctype[i] = ct;
        d->in_ctype[0] = AUG__CT_BOOL;
        d->out_ctype = ct;
        return;
    } else if (cl == AUG__CLASS_FMA) {
        aug_dtype fp = aug_promote(o[1].eff, o[2].eff);
        if (o[0].tensor) fp = aug_promote(fp, o[0].eff); /* a tensor coefficient takes part */
        ct = (int)aug_dtype_info(fp)->temp;
    } else if (r == AUG_BOOL) { /* all-bool ops are exact in BOOL */
        for (int i = 0; i < nin; i++)
            if (!o[i].tensor) d->elem[i] = r;
        ct = (int)r;
    } else if (cl == AUG__CLASS_BITWISE || cl == AUG__CLASS_SHIFT || d->op == AUG_OP_INVERT) {
        /* Exact operand values: R when they all fit, else the exact I128. */
        flip_negative_count(in, r, d);
        ct = (int)r;
        for (int i = 0; i < nin; i++) {
            if (o[i].tensor) {
                if (!lossless(o[i].dt, (int)r)) ct = AUG__I128;
            } else if (scalar_fits(&d->value[i], r)) {
                d->elem[i] = r;
            } else {
                ct = AUG__I128;
            }
        }
    } else if (!is_float(r)) {
        ct = (int)r;
        for (int i = 0; i < nin; i++) {
            if (!o[i].tensor && o[i].weak && scalar_fits(&d->value[i], r)) d->elem[i] = r;
            aug_dtype vd = o[i].tensor ? o[i].dt : d->elem[i];
            if (!lossless(vd, (int)r)) ct = AUG__I128;
        }
    } else if (d->op == AUG_OP_FLOORDIV || d->op == AUG_OP_MOD) {
        ct = ctype_of(r);
        for (int i = 0; i < nin; i++) {
            if (!o[i].tensor)
                round_scalar_to(d, i, r);
            else if (ct != (int)r && !lossless(o[i].dt, (int)r))
                d->precast[i] = r; /* an integer beyond float16/bfloat16's precision; wider
                                      R: the loop's conversion into R's ctype rounds */
        }
        d->precast_ieee = 1;
    } else {
        ct = r == AUG_FLOAT64 ? (int)AUG_FLOAT64 : (int)AUG_FLOAT32;
        for (int i = 0; i < nin; i++) {
            if (!o[i].tensor && o[i].weak) {
                if (is_float(o[i].eff))
                    round_scalar_to(d, i, o[i].eff); /* NEP 50: rounded (IEEE) to the dtype it takes */
                else if (scalar_fits(&d->value[i], o[i].eff))
                    d->elem[i] = o[i].eff;
            }
            aug_dtype vd = o[i].tensor ? o[i].dt : d->elem[i];
            if (!is_float(vd) && !lossless(vd, AUG_FLOAT32)) ct = AUG_FLOAT64;
        }
    }
    for (int i = 0; i < nin; i++) d->in_ctype[i] = ct;
    d->out_ctype = ct;
}

/* An explicit compute dtype: validated against the op, every operand cast to it. */
static aug_status decide_override(const char *func, const aug_operand *in, int nin, const opinfo *o,
                                  aug_dtype c, aug__ew_decision *d) {
    aug__op_class cl = aug__op_class_of(d->op);
    aug_kind k = kind_of(c);
    int ok;
    switch (cl) {
    case AUG__CLASS_CMP:
    case AUG__CLASS_WHERE:
    case AUG__CLASS_COPY: ok = 1; break;
    case AUG__CLASS_TRUEDIV:
    case AUG__CLASS_MATH:
    case AUG__CLASS_FMA: ok = k == AUG_KIND_FLOAT; break;
    case AUG__CLASS_BITWISE: ok = k != AUG_KIND_FLOAT; break;
    case AUG__CLASS_SHIFT: ok = k == AUG_KIND_INT || k == AUG_KIND_UINT; break;
    case AUG__CLASS_DIV: ok = k != AUG_KIND_BOOL; break;
    default: /* UNARY, ARITH */
        ok = d->op == AUG_OP_INVERT ? k != AUG_KIND_FLOAT : (k != AUG_KIND_BOOL || bool_allowed(d->op));
        break;
    }
    if (!ok)
        return aug__error(AUG_ERR_TYPE, func, "cannot compute `%s` in %s", aug_op_name(d->op), aug_dtype_name(c));
    flip_negative_count(in, c, d);
    int ct = ctype_of(c);
    for (int i = 0; i < nin; i++) {
        if (cl == AUG__CLASS_WHERE && i == 0) { /* the condition: read as bool, never cast to c */
            d->in_ctype[0] = AUG__CT_BOOL;
            continue;
        }
        if (!o[i].tensor) {
            /* arithmetic rounds a scalar into a float c as IEEE does (as the operators'
             * weak scalars); a selection or copy converts it (saturating) */
            if (is_float(c) && cl != AUG__CLASS_WHERE && cl != AUG__CLASS_COPY) round_scalar_to(d, i, c);
            else d->elem[i] = c;
        } else if (ct != (int)c && o[i].dt != c)
            d->precast[i] = c; /* float16/bfloat16: round to c before computing in float32 */
        d->in_ctype[i] = ct;
    }
    d->out_ctype = cl == AUG__CLASS_CMP ? (int)AUG_BOOL : ct;
    return AUG_OK;
}

static aug_status ew_decide(const char *func, aug_op op, int nin, const aug_operand *in, aug_dtype compute,
                            aug__ew_decision *d) {
    opinfo o[AUG__MAX_INPUTS];
    memset(d, 0, sizeof *d);
    aug_dtype p = analyse_op(op, nin, in, o);
    d->op = op;
    for (int i = 0; i < AUG__MAX_INPUTS; i++) d->precast[i] = AUG_DTYPE_AUTO;
    for (int i = 0; i < nin; i++) {
        if (o[i].tensor) continue;
        d->value[i] = in[i].scalar;
        d->elem[i] = in[i].scalar.dtype;
    }
    if (compute == AUG_DTYPE_AUTO) {
        aug_status st = check_rules(func, op, nin, o);
        if (st != AUG_OK) return st;
    }
    aug__op_class cl = aug__op_class_of(op);
    d->result = natural_result(cl, o, p);
    if (compute != AUG_DTYPE_AUTO) return decide_override(func, in, nin, o, compute, d);
    if (cl == AUG__CLASS_CMP)
        decide_cmp(in, o, d);
    else
        decide_auto(in, nin, o, d);
    return AUG_OK;
}
