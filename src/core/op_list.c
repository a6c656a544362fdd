/* core/op_list.c: the elementwise op list's tables (AUG_OP_LIST, aug/ops.h):
 * each op's name, operand count, entry-point name for messages and class (the
 * type rule core/promote.c applies). Every file that needs one of these asks
 * here; the list itself is the only place an op is declared. */
#include "promote.h"

#define OP_OK(op) ((int)(op) >= 0 && (op) < AUG_NUM_OPS)

const char *aug_op_name(aug_op op) {
    static const char *const names[AUG_NUM_OPS] = {
#define X_(e, sym, arity, name, cls, fam, b, py) sym,
        AUG_OP_LIST(X_)
#undef X_
    };
    return OP_OK(op) ? names[op] : "invalid";
}

int aug_op_arity(aug_op op) {
    static const int arities[AUG_NUM_OPS] = {
#define X_(e, sym, arity, name, cls, fam, b, py) arity,
        AUG_OP_LIST(X_)
#undef X_
    };
    return OP_OK(op) ? arities[op] : 0;
}

const char *aug__op_func(aug_op op) {
    static const char *const funcs[AUG_NUM_OPS] = {
#define X_(e, sym, arity, name, cls, fam, b, py) "aug_" #name,
        AUG_OP_LIST(X_)
#undef X_
    };
    return OP_OK(op) ? funcs[op] : "aug_elementwise";
}

aug__op_class aug__op_class_of(aug_op op) {
    static const aug__op_class classes[AUG_NUM_OPS] = {
#define X_(e, sym, arity, name, cls, fam, b, py) AUG__CLASS_##cls,
        AUG_OP_LIST(X_)
#undef X_
    };
    return OP_OK(op) ? classes[op] : AUG__CLASS_MATH;
}
