/* core/cuda_module.c: finding and loading the CUDA backend module at run time.
 *
 * libaug never links a CUDA library: the CUDA backend is a module of its own,
 * loaded with dlopen on first use, so libaug and augpy load and run on any
 * machine. Which module: AUG_CUDA_BACKEND selects "cuda" (the default,
 * libaug_cuda.so), "emu" (libaug_cuda_emu.so, the host emulation the tests run
 * on, see tests/cuda_emu) or "off" (none). Where: $AUG_CUDA_MODULE when set (a
 * full path); else beside the object that holds libaug (libaug.so, or augpy's
 * extension, which links it statically); else the build tree this library was
 * built from; else the dynamic loader's search path.
 *
 * A module that loads but sees no GPU (no driver, no device) reports why, and
 * the library stays on the CPU: aug_cuda_status() returns that reason.
 *
 * Loading is not starting: the module's probe (aug_cuda_module_probe,
 * cuda/probe.cu) counts the GPUs without initialising CUDA, which answers
 * aug_device_count and the default device; the module's init (the CUDA runtime:
 * cudaGetDeviceCount, device properties, the memory pool) runs at the first
 * real use, through aug__cuda_backend (an allocation, an op, a stream, device
 * properties). From then on the runtime's count is the count. So a process that
 * imported augpy and chose cuda:0 but ran nothing on it can fork workers that
 * start CUDA themselves; a child forked after CUDA started cannot use CUDA (the
 * driver refuses it), and gets a clear error naming the 'spawn' start method
 * instead of a CUDA failure: no call reaches the module there. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "backend.h"
#include "ctype.h"

#ifndef AUG_CUDA_MODULE_BUILD_DIR
#define AUG_CUDA_MODULE_BUILD_DIR ""
#endif

/* The module's probe: the device count without starting CUDA, -1 if unknown;
 * 0 with *why set when there is none. */
typedef int (*aug__cuda_module_probe_fn)(const aug__host_api *host, const char **why);
#define AUG__CUDA_MODULE_PROBE "aug_cuda_module_probe"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;  /* dlopen and probe */
static pthread_once_t start_once = PTHREAD_ONCE_INIT; /* the module's init */
static aug__cuda_module_init_fn init_fn;
static int probed = -1; /* the probe's count; -1: no probe, or it could not tell */
static atomic_int started; /* start() ran: CUDA is (or was tried to be) initialised */
static atomic_int forked;  /* this process was forked after start() */
static const aug__backend *loaded;
static char status[1024] = "not loaded";

static const char fork_status[] =
    "CUDA was started in this process's parent before fork(), and a forked process cannot use it: start "
    "worker processes with the 'spawn' method (multiprocessing.get_context('spawn'), torch.multiprocessing, "
    "DataLoader(multiprocessing_context='spawn')), or use CUDA in the parent only after forking";

static const aug__host_api host_api = {AUG__BACKEND_ABI, AUG_NUM_OPS, AUG_NUM_DTYPES, aug__verror, aug__convert_one,
                                       aug_op_name, AUG__NUM_FAMILIES, aug__family_name};

/* dlopen of dir/name when that file exists, or of plain `name` through the
 * loader's search path (dir NULL). A file that exists but fails to load keeps
 * the loader's message in err (the first such one). */
static void *try_open(const char *dir, const char *name, char *err, size_t errlen) {
    char path[4096];
    if (dir) {
        snprintf(path, sizeof path, "%s%s%s", dir, dir[0] ? "/" : "", name);
        if (access(path, F_OK) != 0) return NULL;
    } else {
        snprintf(path, sizeof path, "%s", name);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && err[0] == '\0' && (dir || strchr(name, '/'))) {
        const char *e = dlerror();
        snprintf(err, errlen, "cannot load the CUDA module: %s", e ? e : "unknown error");
    }
    return h;
}

/* The directory of the object this function lives in ("" if unknown). */
static void self_dir(char *dir, size_t len) {
    Dl_info info;
    dir[0] = '\0';
    if (dladdr((void *)self_dir, &info) && info.dli_fname) {
        snprintf(dir, len, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            dir[0] = '\0';
    }
}

static void load(void) {
    const char *mode = getenv("AUG_CUDA_BACKEND");
    const char *name = "libaug_cuda.so";
    if (mode && *mode) {
        if (strcasecmp(mode, "off") == 0 || strcasecmp(mode, "none") == 0 || strcasecmp(mode, "cpu") == 0) {
            snprintf(status, sizeof status, "CUDA disabled by AUG_CUDA_BACKEND=%s", mode);
            return;
        }
        if (strcasecmp(mode, "emu") == 0)
            name = "libaug_cuda_emu.so";
        else if (strcasecmp(mode, "cuda") != 0) {
            snprintf(status, sizeof status, "AUG_CUDA_BACKEND=%s is not one of cuda, emu, off", mode);
            return;
        }
    }
    char err[1024] = "";
    void *h = NULL;
    const char *explicit_path = getenv("AUG_CUDA_MODULE");
    if (explicit_path && *explicit_path) {
        h = try_open("", explicit_path, err, sizeof err);
        if (!h && !err[0]) snprintf(err, sizeof err, "AUG_CUDA_MODULE=%s does not exist", explicit_path);
    } else {
        char dir[4096];
        self_dir(dir, sizeof dir);
        if (dir[0]) h = try_open(dir, name, err, sizeof err);
        if (!h && AUG_CUDA_MODULE_BUILD_DIR[0]) h = try_open(AUG_CUDA_MODULE_BUILD_DIR, name, err, sizeof err);
        if (!h && !err[0]) h = try_open(NULL, name, err, sizeof err);
    }
    if (!h) {
        if (err[0])
            snprintf(status, sizeof status, "%s", err);
        else
            snprintf(status, sizeof status, "no CUDA module (%s was not found)", name);
        return;
    }
    aug__cuda_module_init_fn init = (aug__cuda_module_init_fn)(void (*)(void))dlsym(h, AUG__CUDA_MODULE_INIT);
    if (!init) {
        snprintf(status, sizeof status, "%s has no %s", name, AUG__CUDA_MODULE_INIT);
        dlclose(h);
        return;
    }
    init_fn = init;
    status[0] = '\0';
    aug__cuda_module_probe_fn probe = (aug__cuda_module_probe_fn)(void (*)(void))dlsym(h, AUG__CUDA_MODULE_PROBE);
    if (probe) { /* an older module has none: it starts to count */
        const char *why = NULL;
        probed = probe(&host_api, &why);
        if (probed == 0) snprintf(status, sizeof status, "%s", why ? why : "no CUDA device");
    }
}

static void after_fork_child(void) {
    if (atomic_load(&started)) atomic_store(&forked, 1);
}

static void start(void) {
    pthread_once(&load_once, load);
    if (!init_fn || probed == 0) return; /* no module, or the probe found no device: nothing to start */
    pthread_atfork(NULL, NULL, after_fork_child);
    atomic_store(&started, 1);
    const char *why = NULL;
    const aug__backend *be = init_fn(&host_api, &why);
    if (!be) {
        snprintf(status, sizeof status, "%s", why ? why : "the CUDA module refused to start");
        return; /* keep the module loaded: its runtime may hold state */
    }
    loaded = be;
}

const aug__backend *aug__cuda_backend(void) {
    if (atomic_load(&forked)) return NULL; /* aug_cuda_status says why */
    pthread_once(&start_once, start);
    return loaded;
}

int aug__cuda_device_count(void) {
    pthread_once(&load_once, load);
    if (!atomic_load(&started) && probed >= 0) return probed;
    if (!atomic_load(&forked)) pthread_once(&start_once, start);
    /* a forked child keeps its parent's count (module state, no CUDA call): the
     * devices exist, but using one fails with the fork message */
    return loaded ? loaded->device_count() : 0;
}

const char *aug_cuda_status(void) {
    pthread_once(&load_once, load);
    if (atomic_load(&forked)) return fork_status;
    /* the probe could not tell (no NVML, no /proc/driver/nvidia): only the
     * runtime knows whether there is a device, and the status must say */
    if (init_fn && probed < 0) pthread_once(&start_once, start);
    return status;
}
