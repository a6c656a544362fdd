/* cuda/probe.cu: counting the GPUs without starting CUDA (aug_cuda_module_probe).
 *
 * The module's second exported symbol. libaug asks it for the device count when
 * it only needs to decide the default device (core/cuda_module.c); the CUDA
 * runtime itself (aug_cuda_module_init: cudaGetDeviceCount, cuInit) starts on
 * the first real use. A process that initialised CUDA cannot use it in a child
 * forked afterwards (every call there fails with cudaErrorInitializationError),
 * so importing augpy and choosing cuda:0 must not initialise it: DataLoader
 * workers forked from such a parent can start CUDA themselves.
 *
 * The count comes from NVML (libnvidia-ml.so.1: nvmlInit_v2 and
 * nvmlDeviceGetCount_v2 create no CUDA context), else from the driver's
 * /proc/driver/nvidia/gpus entries, reduced by CUDA_VISIBLE_DEVICES as the
 * runtime reads it: unset, every GPU; a list of indices counts up to its first
 * entry that is not a valid, new index ("", "-1", "none": no device); GPU- and
 * MIG- UUIDs count one each (not checked against the GPUs: at most their number).
 * -1 when neither source answers: libaug then starts the runtime to know. The
 * emulation build reads the emulated NVML of tests/cuda_emu (emu_nvml.cpp). */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *count);

#ifdef AUG_CUDA_EMU
extern "C" int nvmlInit_v2(void);
extern "C" int nvmlShutdown(void);
extern "C" int nvmlDeviceGetCount_v2(unsigned int *count);
#endif

/* The GPUs NVML sees, or -1. */
static int nvml_count(void) {
    nvml_init_fn init, shutdown;
    nvml_count_fn count;
#ifdef AUG_CUDA_EMU
    init = nvmlInit_v2;
    shutdown = nvmlShutdown;
    count = nvmlDeviceGetCount_v2;
    void *h = NULL;
#else
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
    shutdown = (nvml_init_fn)dlsym(h, "nvmlShutdown");
    count = (nvml_count_fn)dlsym(h, "nvmlDeviceGetCount_v2");
    if (!init || !shutdown || !count) {
        dlclose(h);
        return -1;
    }
#endif
    int n = -1;
    if (init() == 0) {
        unsigned int c = 0;
        if (count(&c) == 0) n = c > 1024 ? 1024 : (int)c;
        shutdown();
    }
    if (h) dlclose(h);
    return n;
}

/* The GPUs the kernel driver lists, or -1 (no driver loaded). */
static int proc_count(void) {
#ifdef AUG_CUDA_EMU
    return -1; /* the host's real GPUs are not the emulated ones */
#else
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
#endif
}

extern "C" int aug__cuda_visible_count(int physical, const char *visible) {
    if (physical <= 0) return 0;
    if (!visible) return physical;
    unsigned char seen[1024] = {0};
    int n = 0;
    const char *p = visible;
    while (n < physical) {
        while (*p == ' ' || *p == '\t') p++;
        const char *end = p;
        while (*end && *end != ',') end++;
        const char *last = end;
        while (last > p && (last[-1] == ' ' || last[-1] == '\t')) last--;
        size_t len = (size_t)(last - p);
        if (len == 0) break;
        if (len > 4 && (strncmp(p, "GPU-", 4) == 0 || strncmp(p, "MIG-", 4) == 0)) {
            n++;
        } else {
            long id = 0;
            size_t i = 0;
            for (; i < len && isdigit((unsigned char)p[i]) && id < 100000; i++) id = id * 10 + (p[i] - '0');
            if (i != len || id >= physical || id >= (long)sizeof seen || seen[id]) break;
            seen[id] = 1;
            n++;
        }
        if (!*end) break;
        p = end + 1;
    }
    return n;
}

const char *aug__cuda_host_check(const aug__host_api *host) {
    static char why[512];
    if (!host || host->abi != AUG__BACKEND_ABI) {
        snprintf(why, sizeof why, "the CUDA module was built for another libaug (ABI %d, libaug has %d)",
                 AUG__BACKEND_ABI, host ? host->abi : -1);
        return why;
    }
    /* the op list and the dtype enum are compiled into both sides: they must agree */
    static const char *const ops[] = {
#define X_(e, sym, arity, name, cls, fam, b, py) sym,
        AUG_OP_LIST(X_)
#undef X_
    };
    int same = host->num_ops == AUG_NUM_OPS && host->num_dtypes == AUG_NUM_DTYPES;
    for (int i = 0; same && i < AUG_NUM_OPS; i++) same = strcmp(host->op_name((aug_op)i), ops[i]) == 0;
    if (!same) {
        snprintf(why, sizeof why, "the CUDA module was built with another op list or dtype set than libaug "
                 "(%d ops, %d dtypes; libaug has %d, %d): rebuild it", AUG_NUM_OPS, AUG_NUM_DTYPES, host->num_ops,
                 host->num_dtypes);
        return why;
    }
    /* ... and the family registry (core/backend.h): run's family numbers */
    static const char *const families[] = {
#define X_(F, entry, plan_t, what) what,
        AUG__COMPUTE_FAMILIES(X_)
#undef X_
    };
    same = host->num_families == AUG__NUM_FAMILIES && host->family_name != NULL;
    for (int f = 0; same && f < AUG__FAMILY_JPEG; f++)
        same = strcmp(host->family_name((aug__family)f), families[f]) == 0;
    if (!same) {
        snprintf(why, sizeof why, "the CUDA module was built with another family registry than libaug "
                 "(%d families; libaug has %d): rebuild it", (int)AUG__NUM_FAMILIES, host->num_families);
        return why;
    }
    return NULL;
}

extern "C" __attribute__((visibility("default"))) int aug_cuda_module_probe(const aug__host_api *host,
                                                                            const char **why) {
    static char why_buf[256];
    const char *bad = aug__cuda_host_check(host);
    if (bad) {
        *why = bad;
        return 0;
    }
    int physical = nvml_count();
    const char *source = "NVML";
    if (physical < 0) {
        physical = proc_count();
        source = "/proc/driver/nvidia/gpus";
    }
    if (physical < 0) return -1;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int n = aug__cuda_visible_count(physical, visible);
    if (n == 0) {
        if (physical == 0)
            snprintf(why_buf, sizeof why_buf, "no CUDA device (%s lists no GPU)", source);
        else
            snprintf(why_buf, sizeof why_buf, "no CUDA device (CUDA_VISIBLE_DEVICES=%.100s hides the %d GPU%s)",
                     visible, physical, physical == 1 ? "" : "s");
        *why = why_buf;
    }
    return n;
}
