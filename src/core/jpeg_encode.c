/* core/jpeg_encode.c: aug_jpeg_encode (include/aug/image.h), the front of the
 * JPEG encoder: argument checks, the image's layout (core/resize_layout.h),
 * the pixels read into packed host memory (from any device, any strides: a
 * CUDA tensor is copied to the host, waiting for it), then codec/jpeg_encode.c,
 * and the file returned as a new 1-D uint8 CPU tensor. */
#include <stdlib.h>
#include <string.h>

#include "aug/image.h"
#include "codec/jpeg_encode.h"
#include "resize_layout.h"
#include "tensor_impl.h"

/* The JPEG format's largest side (16-bit sizes in the frame header). */
#define JPEG_MAX_SIDE 65535

aug_status aug_jpeg_encode(const aug_tensor *image, const char *layout, int quality, aug_tensor **out) {
    static const char func[] = "aug_jpeg_encode";
    if (out == NULL) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = aug__tensor_check(func, image);
    if (st != AUG_OK) return st;
    if (quality < 1 || quality > 100)
        return aug__error(AUG_ERR_VALUE, func, "quality must be in 1..100, got %d", quality);
    if (image->dtype != AUG_UINT8)
        return aug__error(AUG_ERR_TYPE, func, "image must be uint8, not %s", aug_dtype_name(image->dtype));
    aug__img_layout L;
    if ((st = aug__image_layout(func, image, layout, AUG__LAYOUT_IMAGE, &L)) != AUG_OK) return st;
    if (L.C != 1 && L.C != 3)
        return aug__error(AUG_ERR_VALUE, func, "image must have 1 or 3 channels, got %lld (layout %s)",
                          (long long)L.C, L.name);
    if (L.H < 1 || L.W < 1 || L.H > JPEG_MAX_SIDE || L.W > JPEG_MAX_SIDE)
        return aug__error(AUG_ERR_VALUE, func, "image of %lld x %lld: a JPEG's sides are 1..%d", (long long)L.H,
                          (long long)L.W, JPEG_MAX_SIDE);
    int perm[3] = {L.h_ax, L.w_ax, L.c_ax};
    aug_tensor *hwc = L.c_ax < 0 ? aug_tensor_view(image) : aug_tensor_permute(image, perm);
    if (hwc == NULL) return aug_last_status() != AUG_OK ? aug_last_status() : AUG__NOMEM(func);
    const size_t n = (size_t)(L.H * L.W * L.C);
    uint8_t *pixels = malloc(n);
    if (pixels == NULL) {
        aug_tensor_free(hwc);
        return AUG__NOMEM(func);
    }
    st = aug_tensor_read(hwc, pixels, n, 1);
    aug_tensor_free(hwc);
    uint8_t *data = NULL;
    size_t size = 0;
    if (st == AUG_OK) st = aug__jpeg_encode_packed(func, pixels, (int)L.H, (int)L.W, (int)L.C, quality, &data, &size);
    free(pixels);
    if (st != AUG_OK) return st;
    int64_t len = (int64_t)size;
    aug_tensor *t = aug_tensor_empty(1, &len, AUG_UINT8, aug_cpu_device());
    if (t == NULL) {
        free(data);
        return aug_last_status() != AUG_OK ? aug_last_status() : AUG__NOMEM(func);
    }
    memcpy(aug_tensor_ptr(t), data, size);
    free(data);
    *out = t;
    return AUG_OK;
}
