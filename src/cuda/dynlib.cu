/* cuda/dynlib.cu: finding and opening the NVIDIA libraries the CUDA module loads
 * at run time (cuBLAS for gemm, nvJPEG for decoding), so that none of them is a
 * link-time dependency: a machine without one loses only what needs it.
 *
 * A library is looked for in this order, the first that opens wins:
 *   1. the file its environment variable names (AUG_CUBLAS_LIBRARY, ...);
 *   2. the lib folders of the NVIDIA PyPI wheels (`pip install augpy[cuda]`),
 *      nvidia/cu13/lib (the CUDA 13 wheels) and nvidia/<wheel>/lib (the
 *      per-library layout of older ones), under every site-packages (or
 *      dist-packages) folder holding an object loaded in this process: augpy's
 *      own extension puts its environment's there, NumPy or PyTorch another's.
 *      The wheels come first, as PyTorch's RPATH makes them: the versions the
 *      extra pins win over whatever the system has;
 *   3. its soname on the dynamic linker's path (LD_LIBRARY_PATH, ld.so.cache);
 *   4. the folder the build found it in.
 * The wheels' libraries carry RPATH $ORIGIN, so their own dependencies
 * (libcublasLt beside libcublas) resolve from the same folder.
 *
 * The emulated module opens through the emulator (tests/cuda_emu), which
 * answers libcublas.so.13 with its cuBLAS stand-in, or refuses it when
 * AUG_EMU_NO_CUBLAS=1 models a machine without cuBLAS. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda/cuda.h"

#ifdef AUG_CUDA_EMU
#define AUG__DLOPEN(path) ::aug_emu::lib_open(path)
#define AUG__DLSYM(lib, name) ::aug_emu::lib_sym((lib), (name))
#define AUG__DLERROR() ::aug_emu::lib_error()
#else
#define AUG__DLOPEN(path) dlopen((path), RTLD_NOW | RTLD_LOCAL)
#define AUG__DLSYM(lib, name) dlsym((lib), (name))
#define AUG__DLERROR() dlerror()
#endif

#define MAX_SITES 8

typedef struct site_list {
    int n;
    char dir[MAX_SITES][512];
} site_list;

/* dl_iterate_phdr callback: the site-packages prefix of each loaded object's path. */
static int add_site(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    site_list *s = (site_list *)data;
    const char *name = info->dlpi_name;
    const char *const marks[2] = {"/site-packages/", "/dist-packages/"};
    for (int m = 0; m < 2 && name && *name; m++) {
        const char *at = strstr(name, marks[m]);
        if (!at) continue;
        size_t len = (size_t)(at - name) + strlen(marks[m]) - 1; /* without the trailing '/' */
        if (len >= sizeof s->dir[0]) return 0;
        for (int i = 0; i < s->n; i++)
            if (strlen(s->dir[i]) == len && strncmp(s->dir[i], name, len) == 0) return 0;
        if (s->n == MAX_SITES) return 1;
        memcpy(s->dir[s->n], name, len);
        s->dir[s->n++][len] = '\0';
        return 0;
    }
    return 0;
}

/* Opens path; the first failure's message is kept in first. */
static void *try_open(const char *path, char *first, size_t first_size) {
    void *lib = AUG__DLOPEN(path);
    if (!lib && !first[0]) {
        const char *e = AUG__DLERROR();
        snprintf(first, first_size, "%s", e ? e : path);
    }
    return lib;
}

void *aug__cuda_dlopen(const char *soname, const char *env, const char *wheel, const char *build_dir, char *why,
                       size_t why_size) {
    char path[1024];
    char first[sizeof path + 256] = ""; /* a loader message naming a path */
    const char *forced = env ? getenv(env) : NULL;
    if (forced && *forced) { /* named explicitly: no search beyond it */
        void *lib = try_open(forced, first, sizeof first);
        if (!lib) snprintf(why, why_size, "%s=%s does not open: %s", env, forced, first);
        return lib;
    }
    void *lib = NULL;
    site_list sites;
    sites.n = 0;
    dl_iterate_phdr(add_site, &sites);
    for (int i = 0; i < sites.n && !lib; i++) {
        snprintf(path, sizeof path, "%s/nvidia/cu13/lib/%s", sites.dir[i], soname);
        if (access(path, F_OK) == 0) lib = try_open(path, first, sizeof first);
        if (lib) break;
        snprintf(path, sizeof path, "%s/nvidia/%s/lib/%s", sites.dir[i], wheel, soname);
        if (access(path, F_OK) == 0) lib = try_open(path, first, sizeof first);
    }
    if (!lib) lib = try_open(soname, first, sizeof first);
    if (!lib && build_dir && *build_dir) {
        snprintf(path, sizeof path, "%s/%s", build_dir, soname);
        lib = try_open(path, first, sizeof first);
    }
    if (!lib)
        snprintf(why, why_size,
                 "%s; looked in nvidia/cu13/lib and nvidia/%s/lib of %d site-packages folder(s) (pip install "
                 "'augpy[cuda]' installs them there), on the loader's path%s%s",
                 first, wheel, sites.n, build_dir && *build_dir ? " and in " : "", build_dir ? build_dir : "");
    return lib;
}

void *aug__cuda_dlsym(void *lib, const char *name) { return AUG__DLSYM(lib, name); }

int aug__cuda_driver_present(void) {
    void *lib = AUG__DLOPEN("libcuda.so.1");
    if (!lib) return 0;
#ifndef AUG_CUDA_EMU
    dlclose(lib);
#endif
    return 1;
}
