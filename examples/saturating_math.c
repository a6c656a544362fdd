/* examples/saturating_math.c: uint8 arithmetic that saturates instead of wrapping. */
#include <stdio.h>
#include <aug/aug.h>

int main(void) {
    int64_t shape[1] = {4};
    aug_tensor *a = aug_tensor_empty(1, shape, AUG_UINT8, aug_cpu_device());
    aug_tensor *b = aug_tensor_empty(1, shape, AUG_UINT8, aug_cpu_device());
    if (!a || !b) { fprintf(stderr, "%s\n", aug_last_error()); return 1; }
    uint8_t *pa = aug_tensor_ptr(a), *pb = aug_tensor_ptr(b);
    const uint8_t va[4] = {10, 200, 250, 5}, vb[4] = {20, 100, 10, 9};
    for (int i = 0; i < 4; i++) { pa[i] = va[i]; pb[i] = vb[i]; }

    aug_tensor *sum = NULL, *diff = NULL;
    if (aug_binary(AUG_OP_ADD, a, b, &sum) || aug_binary(AUG_OP_SUB, a, b, &diff)) {
        fprintf(stderr, "%s\n", aug_last_error());
        return 1;
    }
    const uint8_t *ps = aug_tensor_ptr(sum), *pd = aug_tensor_ptr(diff);
    for (int i = 0; i < 4; i++)
        printf("%3u + %3u = %3u    %3u - %3u = %3u\n", va[i], vb[i], ps[i], va[i], vb[i], pd[i]);

    /* A mistake is an error message, never a crash. */
    int64_t s3[1] = {3};
    aug_tensor *c = aug_tensor_empty(1, s3, AUG_UINT8, aug_cpu_device()), *bad = NULL;
    if (aug_binary(AUG_OP_ADD, a, c, &bad) != AUG_OK) printf("error: %s\n", aug_last_error());

    aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(c);
    aug_tensor_free(sum); aug_tensor_free(diff);
    return 0;
}
