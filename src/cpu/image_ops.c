/* cpu/image_ops.c: aug_image_ops_batch (aug/policy.h), a batch's per-image op
 * lists in one call. Each image is one task of one pool job: its ops run one
 * after another on the thread that took it, each through its public function
 * (whose own aug__parallel_for then finds the pool busy and runs serially), so
 * a policy stage is one job of N image-sized tasks instead of N times a few
 * jobs of a single small image, whose wake-ups and polling between calls cost
 * more CPU time than they save (docs/policies.md, "Speed"). Results are those
 * of the ops called one by one: the tasks are fixed per image and no op's
 * result depends on the thread count. Devices other than the CPU run the
 * images in order on the calling thread (their ops queue on its stream, with
 * no host wait between images; a background on the device is read back once). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "aug/colour.h"
#include "aug/image.h"
#include "aug/ops.h"
#include "aug/policy.h"
#include "core/blur.h"
#include "core/error.h"
#include "cpu/pool.h"

static const char *const FUNC = "aug_image_ops_batch";

typedef struct ops_job {
    aug_tensor *batch;
    const aug_image_op *ops;
    const int64_t *offsets;
    const aug_tensor *background;
    aug_warp_options wopts;
    pthread_mutex_t lock;   /* guards the first failure below */
    int64_t err_image;      /* the lowest failing image (-1: none) */
    int64_t err_op;
    aug_status err_status;
    char err_msg[512];
} ops_job;

/* timm's SolarizeAdd as augpy's Python spelling of it computes it:
 * where(x < 128, x + add (saturating), x). */
static aug_status solarize_add(const aug_tensor *t, int64_t add, aug_tensor **out) {
    aug_tensor *below = NULL, *sum = NULL;
    aug_status s = aug_functional_scalar(FUNC, AUG_OP_LT, t, aug_scalar_int(128), 0, &below);
    if (!s) s = aug_functional_scalar(FUNC, AUG_OP_ADD, t, aug_scalar_int(add), 0, &sum);
    if (!s) {
        aug_operand in[3] = {aug_operand_tensor(below), aug_operand_tensor(sum), aug_operand_tensor(t)};
        s = aug_elementwise(FUNC, AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
    }
    aug_tensor_free(below);
    aug_tensor_free(sum);
    return s;
}

/* One op on cur: a new tensor in *res. */
static aug_status run_op(const ops_job *job, const aug_image_op *op, const aug_tensor *cur, aug_tensor **res) {
    double arg = op->arg;
    switch (op->kind) {
    case AUG_IMAGE_OP_WARP_AFFINE:
        *res = aug_tensor_empty(cur->ndim, cur->shape, cur->dtype, cur->device);
        if (!*res) return aug_last_status();
        return aug_warp_affine_ex(cur, *res, op->matrix, job->background, 1, &job->wopts);
    case AUG_IMAGE_OP_BRIGHTNESS: return aug_adjust_brightness(cur, arg, res);
    case AUG_IMAGE_OP_CONTRAST: return aug_adjust_contrast(cur, arg, res);
    case AUG_IMAGE_OP_SATURATION: return aug_adjust_saturation(cur, arg, res);
    case AUG_IMAGE_OP_SHARPNESS: return aug_adjust_sharpness(cur, &arg, 1, res);
    case AUG_IMAGE_OP_POSTERIZE: {
        int32_t bits = (int32_t)arg; /* checked integral and in range by the caller */
        return aug_posterize(cur, &bits, 1, res);
    }
    case AUG_IMAGE_OP_SOLARIZE: return aug_solarize(cur, &arg, 1, res);
    case AUG_IMAGE_OP_SOLARIZE_ADD: return solarize_add(cur, (int64_t)arg, res);
    case AUG_IMAGE_OP_AUTOCONTRAST: return aug_autocontrast(cur, res);
    case AUG_IMAGE_OP_EQUALIZE: return aug_equalize(cur, res);
    case AUG_IMAGE_OP_INVERT: return aug_invert(cur, res);
    case AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR: return aug_pil_gaussian_blur_single(cur, arg, res);
    default: return AUG_OK; /* IDENTITY (kinds are checked before the job) */
    }
}

static void record_failure(ops_job *job, int64_t image, int64_t op, aug_status s) {
    pthread_mutex_lock(&job->lock);
    if (job->err_image < 0 || image < job->err_image) {
        job->err_image = image;
        job->err_op = op;
        job->err_status = s;
        snprintf(job->err_msg, sizeof job->err_msg, "%s", aug_last_error());
    }
    pthread_mutex_unlock(&job->lock);
}

/* Image i's ops on batch[i] (viewed "CHW"), the last result copied back. */
static void run_image(void *ctx, int64_t i, int worker) {
    (void)worker;
    ops_job *job = ctx;
    aug_index idx = {.kind = AUG_INDEX_INT, .i = i};
    aug_tensor *view = aug_tensor_index(job->batch, 1, &idx), *last = NULL;
    aug_status s = view ? aug_tensor_set_layout(view, "CHW") : aug_last_status();
    int64_t end = job->offsets[i + 1], j = s ? end : job->offsets[i]; /* a failed view is no op's */
    for (; !s && j < end; j++) {
        aug_tensor *res = NULL;
        s = run_op(job, &job->ops[j], last ? last : view, &res);
        if (s) {
            aug_tensor_free(res);
            break;
        }
        if (res) {
            aug_tensor_free(last);
            last = res;
        }
    }
    if (!s && last) s = aug_copy(last, view);
    if (s) record_failure(job, i, j < end ? j - job->offsets[i] : -1, s);
    aug_tensor_free(last);
    aug_tensor_free(view);
}

static aug_status check_args(const aug_tensor *batch, const aug_image_op *ops, const int64_t *offsets,
                             aug_interp interpolation) {
    if (!batch || !offsets)
        return aug__error(AUG_ERR_VALUE, FUNC, "%s is NULL", batch ? "offsets" : "batch");
    if (batch->ndim != 4)
        return aug__error(AUG_ERR_VALUE, FUNC, "batch must be (N, C, H, W), got %d dimensions", batch->ndim);
    if (batch->layout[0] && strcmp(batch->layout, "NCHW") != 0)
        return aug__error(AUG_ERR_VALUE, FUNC, "batch must have layout 'NCHW' (or none), got '%s'", batch->layout);
    if (interpolation != AUG_INTERP_LINEAR && interpolation != AUG_INTERP_NEAREST)
        return aug__error(AUG_ERR_VALUE, FUNC, "interpolation must be linear or nearest, got %d", (int)interpolation);
    int64_t n = batch->shape[0];
    if (offsets[0] != 0) return aug__error(AUG_ERR_VALUE, FUNC, "offsets[0] must be 0, got %lld", (long long)offsets[0]);
    for (int64_t i = 0; i < n; i++)
        if (offsets[i + 1] < offsets[i])
            return aug__error(AUG_ERR_VALUE, FUNC, "offsets must not decrease: offsets[%lld] = %lld < %lld",
                              (long long)(i + 1), (long long)offsets[i + 1], (long long)offsets[i]);
    if (offsets[n] > 0 && !ops) return aug__error(AUG_ERR_VALUE, FUNC, "ops is NULL with %lld ops", (long long)offsets[n]);
    for (int64_t j = 0; j < offsets[n]; j++) {
        const aug_image_op *op = &ops[j];
        if ((int)op->kind < AUG_IMAGE_OP_IDENTITY || (int)op->kind > AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR)
            return aug__error(AUG_ERR_VALUE, FUNC, "ops[%lld]: no op kind %d", (long long)j, (int)op->kind);
        if (op->kind == AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR) { /* the function's own checks, before any image changes */
            if (batch->dtype != AUG_UINT8)
                return aug__error(AUG_ERR_TYPE, FUNC, "ops[%lld]: pil_gaussian_blur takes uint8, got %s", (long long)j,
                                  aug_dtype_name(batch->dtype));
            if (!(op->arg >= 0.0 && op->arg <= AUG__PIL_RADIUS_MAX)) /* NaN too */
                return aug__error(AUG_ERR_VALUE, FUNC,
                                  "ops[%lld]: pil_gaussian_blur's radius must be in [0, %g], got %g", (long long)j,
                                  AUG__PIL_RADIUS_MAX, op->arg);
        }
        int integral = op->kind == AUG_IMAGE_OP_POSTERIZE || op->kind == AUG_IMAGE_OP_SOLARIZE_ADD;
        double lo = op->kind == AUG_IMAGE_OP_POSTERIZE ? 0 : -1e15, hi = op->kind == AUG_IMAGE_OP_POSTERIZE ? 32 : 1e15;
        if (integral && !(op->arg >= lo && op->arg <= hi && op->arg == (double)(int64_t)op->arg))
            return aug__error(AUG_ERR_VALUE, FUNC, "ops[%lld]: %s needs an integer argument%s, got %g", (long long)j,
                              op->kind == AUG_IMAGE_OP_POSTERIZE ? "posterize" : "solarize_add",
                              op->kind == AUG_IMAGE_OP_POSTERIZE ? " in [0, 32]" : "", op->arg);
    }
    return AUG_OK;
}

aug_status aug_image_ops_batch(aug_tensor *batch, const aug_image_op *ops, const int64_t *offsets,
                               const aug_tensor *background, aug_interp interpolation) {
    aug_status s = check_args(batch, ops, offsets, interpolation);
    if (s) return s;
    /* A background on the batch's GPU is read back once here (one wait), not by every warp
     * (one on another device is left for the warp to refuse). */
    int warps = 0;
    for (int64_t j = 0; j < offsets[batch->shape[0]]; j++) warps |= ops[j].kind == AUG_IMAGE_OP_WARP_AFFINE;
    aug_tensor *host_bg = NULL;
    if (warps && background && background->device.type != AUG_DEVICE_CPU &&
        background->device.type == batch->device.type && background->device.id == batch->device.id) {
        host_bg = aug_tensor_to(background, aug_cpu_device());
        if (!host_bg) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s", aug_last_error());
            return aug__error(aug_last_status(), FUNC, "background: %s", msg);
        }
    }
    ops_job job = {.batch = batch, .ops = ops, .offsets = offsets, .background = host_bg ? host_bg : background,
                   .err_image = -1};
    job.wopts = aug_warp_options_default();
    job.wopts.interpolation = interpolation;
    job.wopts.layout = "CHW";
    job.wopts.out_layout = "CHW";
    pthread_mutex_init(&job.lock, NULL);
    int64_t n = batch->shape[0];
    if (batch->device.type == AUG_DEVICE_CPU) {
        (void)aug__interrupt_take();
        aug__parallel_for(n, run_image, &job);
        if (aug__interrupt_take() && job.err_image < 0)
            s = aug__error(AUG_ERR_INTERRUPTED, FUNC, "interrupted; the batch holds partial results");
    } else {
        for (int64_t i = 0; i < n && job.err_image < 0; i++) run_image(&job, i, 0);
    }
    pthread_mutex_destroy(&job.lock);
    aug_tensor_free(host_bg);
    if (job.err_image >= 0) {
        if (job.err_op >= 0)
            s = aug__error(job.err_status, FUNC, "image %lld, op %lld: %s", (long long)job.err_image,
                           (long long)job.err_op, job.err_msg);
        else
            s = aug__error(job.err_status, FUNC, "image %lld: %s", (long long)job.err_image, job.err_msg);
    }
    return s;
}
