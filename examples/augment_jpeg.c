/* examples/augment_jpeg.c: one image through the C API's augmentation chain.
 *
 *   augment_jpeg IN.jpg [OUT.ppm]
 *
 * Decodes IN.jpg, rotates it by 15 degrees into a 224x224 canvas (inverse map
 * from aug_make_affine_matrix, supersampled warp), raises the contrast, blurs it
 * with sigma 1.5, adds saturating Gaussian noise (std 8) with aug_fma, and
 * writes the result as a binary PPM. Every call's status is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <aug/aug.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        if ((call) != AUG_OK) {                                               \
            fprintf(stderr, "augment_jpeg: %s\n", aug_last_error());          \
            goto fail;                                                        \
        }                                                                     \
    } while (0)

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) != NULL) {
            if (fread(data, 1, (size_t)n, f) != (size_t)n) {
                free(data);
                data = NULL;
            } else {
                *size = (size_t)n;
            }
        }
    }
    fclose(f);
    return data;
}

/* (3, H, W) uint8 -> binary PPM (interleaves the channels). */
static int write_ppm(const char *path, const aug_tensor *chw) {
    int64_t h = chw->shape[1], w = chw->shape[2];
    const unsigned char *p = aug_tensor_ptr(chw);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fprintf(f, "P6\n%lld %lld\n255\n", (long long)w, (long long)h);
    for (int64_t i = 0; i < h * w; i++)
        for (int c = 0; c < 3; c++) fputc(p[c * h * w + i], f);
    return fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s IN.jpg [OUT.ppm]\n", argv[0]);
        return 2;
    }
    const char *out_path = argc > 2 ? argv[2] : "augmented.ppm";
    int status = 1;
    size_t size = 0;
    unsigned char *data = read_file(argv[1], &size);
    aug_decoder *dec = NULL;
    aug_tensor *img = NULL, *warped = NULL, *lit = NULL, *blurred = NULL, *noise = NULL;
    aug_tensor *gray = NULL, *colors = NULL, *contrast = NULL;
    aug_rng *rng = NULL;
    if (!data) {
        fprintf(stderr, "augment_jpeg: cannot read %s\n", argv[1]);
        return 1;
    }
    aug_device cpu = aug_cpu_device();
    if (!(dec = aug_decoder_new(cpu, 0, 0, 0))) goto fail_msg;
    CHECK(aug_decoder_decode(dec, data, size, NULL, &img));
    printf("decoded %s: %lld x %lld x %lld\n", argv[1], (long long)img->shape[0], (long long)img->shape[1],
           (long long)img->shape[2]);

    int64_t chw[3] = {3, 224, 224};
    if (!(warped = aug_tensor_empty(3, chw, AUG_UINT8, cpu))) goto fail_msg;
    aug_affine_params params = aug_affine_params_default();
    params.angle = 15.0;
    float matrix[6];
    int supersampling = 1;
    CHECK(aug_make_affine_matrix(matrix, img->shape[0], img->shape[1], 224, 224, &params, &supersampling));
    CHECK(aug_warp_affine(img, warped, matrix, NULL, supersampling));

    /* lighting works on batches: view the image as (1, 3, 224, 224). */
    int64_t nchw[4] = {1, 3, 224, 224}, one = 1, three = 3;
    aug_scalar v;
    if (!(lit = aug_tensor_reshape(warped, 4, nchw))) goto fail_msg;
    v = aug_scalar_float(1.0);
    if (!(gray = aug_tensor_full(1, &one, AUG_FLOAT32, cpu, &v))) goto fail_msg;
    if (!(colors = aug_tensor_full(1, &three, AUG_FLOAT32, cpu, &v))) goto fail_msg;
    v = aug_scalar_float(0.5);
    if (!(contrast = aug_tensor_full(1, &one, AUG_FLOAT32, cpu, &v))) goto fail_msg;
    CHECK(aug_lighting(lit, gray, colors, contrast, 0.0, 255.0, &lit)); /* in place */

    CHECK(aug_gaussian_blur_single(warped, 1.5, &blurred));

    uint64_t seed = 42;
    if (!(rng = aug_rng_new(cpu, &seed))) goto fail_msg;
    if (!(noise = aug_tensor_empty(3, chw, AUG_FLOAT32, cpu))) goto fail_msg;
    CHECK(aug_rng_gaussian(rng, noise, 0.0, 1.0));
    CHECK(aug_fma(8.0, noise, blurred, &blurred)); /* 8 * noise + image, saturated to uint8 */

    if (write_ppm(out_path, blurred) != 0) {
        fprintf(stderr, "augment_jpeg: cannot write %s\n", out_path);
        goto fail;
    }
    printf("wrote %s (224 x 224, supersampling %d)\n", out_path, supersampling);
    status = 0;
    goto done;
fail_msg:
    fprintf(stderr, "augment_jpeg: %s\n", aug_last_error());
fail:
done:
    aug_rng_free(rng);
    aug_tensor_free(noise);
    aug_tensor_free(contrast);
    aug_tensor_free(colors);
    aug_tensor_free(gray);
    aug_tensor_free(blurred);
    aug_tensor_free(lit);
    aug_tensor_free(warped);
    aug_tensor_free(img);
    aug_decoder_free(dec);
    free(data);
    return status;
}
