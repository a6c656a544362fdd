/* core/backend.h: the backend interface (private).
 *
 * The C core is backend-neutral: it validates arguments, decides result and
 * compute types, allocates outputs and hands a plan (core/plan.h and the family
 * headers) to the backend of the output's device. The CPU backend (src/cpu)
 * implements every entry; the CUDA backend (src/cuda, a module loaded at run
 * time) implements the same table. The core never includes CUDA headers, and no
 * core file includes a cpu/ header: the only link is aug__cpu_backend below.
 *
 * Every plan carries an aug__exec (device, stream, launch settings). Work may
 * complete asynchronously on its stream; memory freed with `free` is reused only
 * once the work queued before the free on that stream has finished (the
 * backend's pool takes care of it). Errors are reported with aug__error (for a
 * module, through the host API it was given) and returned as aug_status. */
#ifndef AUG_CORE_BACKEND_H
#define AUG_CORE_BACKEND_H

#include <stdarg.h>
#include "aug/image.h"
#include "plan.h"

/* The family registry: every compute family, one row each,
 *   X(FAMILY, entry, plan type, what the "not supported" message calls it).
 * A family is AUG__FAMILY_<FAMILY>; each backend implements it as
 * aug__<backend>_<entry>(const plan *) (aug__cpu_resize, aug__cuda_resize,
 * declared from this list in cpu/cpu.h and cuda/cuda.h), and
 * its table's one `run` entry dispatches on the family from this list
 * (a switch over AUG__COMPUTE_FAMILIES whose cases call the functions by
 * name); the core runs a plan with aug__dispatch_<entry>(be, plan).
 * Adding a family is a row here, its plan (and its header in the list at the
 * end of this file) and one function per backend (a missing one is a link
 * error): no table field, no hand-written slot, no ABI bump (the CUDA module
 * compares this list, by names, with libaug's when it loads: aug__host_api). */
#define AUG__COMPUTE_FAMILIES(X)                                                       \
    X(ELEMENTWISE, elementwise, aug__ew_plan, "this elementwise operation")            \
    X(REDUCE, reduce, aug__reduce_plan, "reduction")                                   \
    X(GEMM, gemm, aug__gemm_plan, "gemm")                                              \
    X(RANDOM, random, aug__random_plan, "random fill")                                 \
    X(WARP, warp_affine, aug__warp_plan, "warp_affine")                                \
    X(LIGHTING, lighting, aug__lighting_plan, "lighting")                              \
    X(BLUR, blur, aug__blur_plan, "blur")                                              \
    X(TAKE, take, aug__take_plan, "advanced indexing")                                 \
    X(RESIZE, resize, aug__resize_plan, "resize")                                      \
    X(COLOUR, colour, aug__colour_plan, "colour")                                      \
    X(NORMALIZE, crop_mirror_normalize, aug__cmn_plan, "crop_mirror_normalize")        \
    X(NOISE, gaussian_noise, aug__noise_plan, "gaussian_noise")                        \
    X(TONE, tone, aug__tone_plan, "this tone operation")                          \
    X(AUTOTONE, autotone, aug__autotone_plan, "this autotone operation")                \
    X(WARP_PERSP, warp_perspective, aug__warp_plan, "warp_perspective")                \
    X(MIX, mix_mirror, aug__mix_plan, "mix_mirror")

/* Each family's plan type, declared here and defined in the family's private
 * core header (core/plan.h, random.h, warp.h, lighting.h, blur.h, resize.h,
 * colour.h, normalize.h, tone.h, autotone.h, mix.h: included at the end of this file, so whoever
 * sees the registry sees every plan); every plan is `struct T` named T. */
#define AUG__X(F, entry, plan_t, what) typedef struct plan_t plan_t;
AUG__COMPUTE_FAMILIES(AUG__X)
#undef AUG__X

/* The families a backend may implement, for supports() and messages: the
 * compute families, then JPEG decoding (the jpeg_* entries of the table). */
typedef enum aug__family {
#define AUG__X(F, entry, plan, what) AUG__FAMILY_##F,
    AUG__COMPUTE_FAMILIES(AUG__X)
#undef AUG__X
    AUG__FAMILY_JPEG,
    AUG__NUM_FAMILIES
} aug__family;

/* What messages call family f ("resize", "random fill", ...; from the registry). */
AUG__HIDDEN const char *aug__family_name(aug__family f);

/* What a plan needs, as supports() is asked: the family, the op within it
 * (aug_op for elementwise, aug_reduce_op for reductions, else 0) and the dtypes
 * involved (AUG_DTYPE_AUTO where none). */
typedef struct aug__need {
    aug__family family;
    int op;
    aug_dtype dtype;      /* the main dtype (input of a reduction, output of the rest) */
    aug_dtype dtype2;     /* a second one (the output of a reduction, the source of a warp) */
} aug__need;

/* A JPEG header as far as the decoder front needs it. */
typedef struct aug__jpeg_header {
    int64_t height, width;
    int components;   /* 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK */
    int libjpeg;      /* CPU: decode with the libjpeg-API fallback (TurboJPEG refused the header) */
} aug__jpeg_header;

/* A region decode (aug_decoder_decode_region): the image scaled by scale_m/8
 * (libjpeg's DCT scaling, scale_m in 1..16), then rows [y, y + h) and columns
 * [x, x + w) of the scaled image, checked by the front. */
typedef struct aug__jpeg_region {
    int scale_m;
    int64_t y, x, h, w;
    /* pitch 0: dst is h compact rows of w RGB pixels. pitch > 0: row i of the
     * band libjpeg decodes (the region widened to the left to an iMCU boundary
     * and by a few columns for the upsampling) goes to dst + i * pitch, and the
     * backend sets skip, the band's columns left of x (band width <= pitch / 3,
     * else AUG_ERR_JPEG); RGB files only (no CMYK conversion). */
    int64_t pitch, skip;
    /* 1: a grayscale file (1 component) decoded to its samples, 1 byte per
     * pixel (an RGB decode repeats them in every channel); pitch 0 only. */
    int gray;
} aug__jpeg_region;

/* jpeg_decode's answer for a file the device's decoder does not take. */
#define AUG__JPEG_REFUSED ((aug_status)-1)

/* The largest blocking host-to-device copy (backend memcpy) that the CUDA
 * backend stages through its page-locked ring instead of waiting for the stream
 * (cuda/staging.cu; a larger one, or one without page-locked memory, waits). */
#define AUG__STAGED_UPLOAD_MAX ((size_t)4 << 20)

typedef struct aug__backend {
    const char *name;                 /* "cpu", "cuda" */
    aug_device_type type;

    /* ---- devices ---- */
    int (*device_count)(void);
    aug_status (*device_props)(int device_id, aug_device_props *out);

    /* ---- memory ---- */
    /* Raw device memory usable by work queued on `stream` from now on; NULL on
     * failure. The core reports it as out of memory, unless the backend recorded
     * an error of its own during the call (a broken CUDA context), which the
     * core keeps under the caller's function name. */
    void *(*alloc)(int device_id, size_t nbytes, void *stream);
    /* Returns memory of nbytes (as allocated); work already queued on `stream`
     * (the freeing thread's current stream) may still use it. */
    void (*free)(int device_id, void *ptr, size_t nbytes, void *stream);
    /* Byte copy between this backend's device and the host or itself, queued on
     * `stream`. blocking: once the call returns, a host destination is readable and
     * a host source may be freed or reused. The CUDA backend meets that without a
     * host wait where stream order suffices: an upload of at most
     * AUG__STAGED_UPLOAD_MAX bytes is copied into its page-locked staging ring and
     * a copy within one device's memory is only queued, both returning with the
     * copy still queued on `stream` (docs/cuda.md, "No host waits inside an op"). */
    aug_status (*memcpy)(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n,
                         void *stream, int blocking);
    aug_status (*meminfo)(int device_id, size_t *used, size_t *free, size_t *total);
    aug_status (*release)(int device_id);
    /* Page-locked host memory for asynchronous copies (NULL: plain malloc'd
     * memory serves). */
    void *(*host_alloc)(size_t nbytes);
    void (*host_free)(void *ptr);

    /* ---- streams and events (handles are the backend's; NULL is valid) ----
     * Every entry gets the device the stream or event was created on (the
     * stream's, for stream_wait and event_record, whose event is of the same
     * device there): a NULL stream handle means that device's default stream,
     * not the calling thread's current device's. stream_wait may take an event
     * of another device of the same backend. */
    aug_status (*stream_new)(int device_id, int priority, void **handle);
    void (*stream_free)(int device_id, void *handle);
    aug_status (*stream_sync)(int device_id, void *handle);
    int (*stream_query)(int device_id, void *handle); /* 1 done, 0 pending, -1 error */
    aug_status (*stream_wait)(int device_id, void *stream, void *event);
    aug_status (*event_new)(int device_id, void **handle);
    void (*event_free)(int device_id, void *handle);
    aug_status (*event_record)(int device_id, void *event, void *stream);
    int (*event_query)(int device_id, void *event); /* 1 done, 0 pending, -1 error */
    aug_status (*event_sync)(int device_id, void *event);
    aug_status (*event_elapsed)(int device_id, void *start, void *end, float *ms);
    aug_status (*synchronize)(int device_id);
    void (*priority_range)(int device_id, int *least, int *greatest);

    /* ---- capability ---- */
    /* 1 if the backend runs such a plan; otherwise the core reports
     * "aug_x: not supported on cuda:0 for dtype Y". NULL: everything. */
    int (*supports)(const aug__need *need);

    /* ---- compute: a plan of any family of AUG__COMPUTE_FAMILIES (the plan's
     * type is the family's; NULL: the backend computes nothing) ---- */
    aug_status (*run)(aug__family family, const void *plan);

    /* ---- JPEG decoding ---- */
    /* A decoder for device_id (host_padding / device_padding / gpu_huffman as in
     * aug_decoder_new). Not thread-safe: one per thread. */
    aug_status (*jpeg_new)(const char *func, int device_id, size_t device_padding, size_t host_padding,
                           int gpu_huffman, void **decoder);
    void (*jpeg_free)(void *decoder);
    /* Which nvJPEG backend a decoder from jpeg_new uses and, where not the hardware, why (NULL: no such entry). */
    const char *(*jpeg_backend)(void *decoder);
    /* Reads the header (decoder may be NULL). AUG_ERR_JPEG on bad data. */
    aug_status (*jpeg_header)(const char *func, void *decoder, const void *data, size_t size,
                              aug__jpeg_header *h);
    /* Decodes to packed RGB (height * width * 3 bytes at dst, memory of the
     * decoder's device), h from jpeg_header on the same data. On error dst
     * holds unspecified bytes. AUG__JPEG_REFUSED (no error recorded, dst
     * untouched): this decoder cannot decode the file; the core decodes it on
     * the CPU and uploads the pixels. */
    aug_status (*jpeg_decode)(const char *func, void *decoder, const void *data, size_t size,
                              const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec);
    /* Decodes, in one batched call of the decoder's hardware engines, those of
     * the n whole-image files (data[i], size[i], h[i] from jpeg_header; each
     * complete and within the limits) that the engines take, each into dst[i]
     * as jpeg_decode would; done[i] is 1 for those, 0 for every other (not
     * taken, or each of a batched call that failed: nothing to report, the
     * core decodes them one by one with jpeg_decode). NULL: no batched decode;
     * without hardware engines every done[i] is 0. An error (the device) leaves
     * every done[i] 0. */
    aug_status (*jpeg_decode_batch)(const char *func, void *decoder, int n, const void *const *data,
                                    const size_t *size, const aug__jpeg_header *h, uint8_t *const *dst, int *done,
                                    const aug__exec *exec);

    /* ---- JPEG, CPU backend only (the core calls these on aug__cpu_backend) ---- */
    /* The header's description (aug_jpeg_describe). */
    aug_status (*jpeg_describe)(const char *func, const void *data, size_t size, aug_jpeg_desc *desc);
    /* Decodes region r of the image to packed RGB (r->h * r->w * 3 bytes of host
     * memory at dst) with libjpeg's scaling, crop and skip; h from jpeg_header. */
    aug_status (*jpeg_decode_region)(const char *func, const void *data, size_t size, const aug__jpeg_header *h,
                                     aug__jpeg_region *r, uint8_t *dst);
} aug__backend;

/* aug__dispatch_<entry>(be, plan): runs a plan of that family on be (a typed
 * call of be->run; the core checked with aug__backend_supporting that be has it). */
#define AUG__X(F, entry, plan_t, what)                                                             \
    static inline aug_status aug__dispatch_##entry(const aug__backend *be, const plan_t *plan) {  \
        return be->run(AUG__FAMILY_##F, plan);                                                     \
    }
AUG__COMPUTE_FAMILIES(AUG__X)
#undef AUG__X

/* The backend serving a device; NULL with an error naming func if unavailable. */
AUG__HIDDEN const aug__backend *aug__backend_for(const char *func, aug_device dev);

/* The backend serving dev if it implements `need` (and its entry exists);
 * otherwise NULL with the one uniform error "func: <what> is not supported on
 * cuda:0 for dtype float16". */
AUG__HIDDEN const aug__backend *aug__backend_supporting(const char *func, aug_device dev, const aug__need *need);

/* Test hook (tests/c/test_backend.c): devices of `type` are served by `be`
 * (NULL: by their own backend again). Not thread-safe; tests only. */
AUG__HIDDEN void aug__backend_override(aug_device_type type, const aug__backend *be);

/* Plans `ops` (core/plan.c) and runs the plan on the output's device: the one
 * path of every elementwise op, cast, copy and fill. */
AUG__HIDDEN aug_status aug__run_elementwise(const char *func, aug_op op, const aug__ew_operands *ops);

AUG__HIDDEN extern const aug__backend aug__cpu_backend;

/* The CUDA backend, loaded and started on first use (core/cuda_module.c); NULL
 * when there is none (aug_cuda_status() says why), and in a process forked
 * after it started (CUDA cannot be used there). */
AUG__HIDDEN const aug__backend *aug__cuda_backend(void);
/* The CUDA devices, without starting CUDA when the module's probe can count them
 * (aug_device_count); once the backend started, its own count. */
AUG__HIDDEN int aug__cuda_device_count(void);

/* ---- the CUDA module's interface ----------------------------------------------------
 * The CUDA backend is a shared object of its own (libaug_cuda.so, or the emulated
 * libaug_cuda_emu.so), so libaug loads and runs without any CUDA library. It
 * exports one function, AUG__CUDA_MODULE_INIT, which receives what it may call
 * in the host library and returns its table, or NULL with *why set ("no CUDA
 * device", ...). AUG__BACKEND_ABI changes whenever a plan or this table does. */
#define AUG__BACKEND_ABI 13 /* 3: ARGMIN/ARGMAX reductions, the take family, ieee float stores;
                             4: resize; 5: colour; 6: crop_mirror_normalize, gaussian_noise; 7: warp
                             plan interp, border, dst strides; 8: colour plan lighting;
                             9: jpeg region pitch / skip;
                             10: the stream and event entries take the device id;
                             11: one run entry for every compute family (the family registry);
                             12: the host API names the families (a new family needs no bump);
                             13: jpeg_decode_batch */
#define AUG__CUDA_MODULE_INIT "aug_cuda_module_init"

typedef struct aug__host_api {
    int abi;
    int num_ops, num_dtypes; /* AUG_NUM_OPS, AUG_NUM_DTYPES of libaug (the module checks the
                              * op names too: the op list's order is part of the ABI) */
    /* Records "func: <message>" as the calling thread's error; returns st. */
    aug_status (*verror)(aug_status st, const char *func, const char *fmt, va_list ap);
    /* aug__convert_one (core/ctype.h): one element between any two ctypes. */
    void (*convert_one)(const void *src, int src_t, void *dst, int dst_t);
    /* aug_op_name, for messages. */
    const char *(*op_name)(aug_op op);
    /* AUG__NUM_FAMILIES and aug__family_name of libaug: the module refuses to load
     * when its family registry differs (the family numbers are run's argument). */
    int num_families;
    const char *(*family_name)(aug__family f);
} aug__host_api;

typedef const aug__backend *(*aug__cuda_module_init_fn)(const aug__host_api *host, const char **why);

/* The families' plans (one header per row of AUG__COMPUTE_FAMILIES beyond
 * plan.h's elementwise, reduce, gemm and take), so that code handed a plan of any
 * family (each backend's run entry, the tests' recording tables) reads its func
 * and exec without a list of its own. Each includes this file first (guarded). */
#include "random.h"
#include "warp.h"
#include "lighting.h"
#include "blur.h"
#include "resize.h"
#include "colour.h"
#include "normalize.h"
#include "tone.h"
#include "autotone.h"
#include "mix.h"

#endif
