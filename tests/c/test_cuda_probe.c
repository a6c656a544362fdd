/* test_cuda_probe.c: the CUDA module's probe (aug_cuda_module_probe,
 * src/cuda/probe.cu), which counts the GPUs without starting CUDA, over the
 * emulated module and its NVML stand-in (tests/cuda_emu/emu_nvml.cpp, 2 GPUs by
 * default): CUDA_VISIBLE_DEVICES as the runtime reads it (unset: all; "", "-1",
 * "none": none; indices up to the first invalid or repeated one; UUIDs one each,
 * at most the GPUs), "cannot tell" (-1) without NVML, and the ABI check. Then
 * libaug itself: aug_device_count and the default device answer from the probe,
 * and the runtime's count agrees once an allocation started it.
 *
 * The module is libaug_cuda_emu.so beside this binary (or $AUG_CUDA_MODULE); the
 * tests skip without it unless AUG_REQUIRE_CUDA=1. On a real GPU (AUG_CUDA_BACKEND
 * other than emu: make gpu-check) the counts are those of the machine's N GPUs and
 * NVML's absence cannot be staged; the cases that need the stand-in's two GPUs or
 * its fake UUIDs are left out there (the runtime rejects a UUID it does not know). */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "core/backend.h"
#include "core/ctype.h"
#include "core/error.h"

typedef int (*probe_fn)(const aug__host_api *host, const char **why);

static void *module;
static probe_fn probe;

static int open_module(void) {
    if (probe) return 1;
    char path[PATH_MAX];
    const char *env = getenv("AUG_CUDA_MODULE");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
        if (n <= 0) return 0;
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        snprintf(slash ? slash + 1 : path, 32, "libaug_cuda_emu.so");
    }
    module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (module) probe = (probe_fn)(void (*)(void))dlsym(module, "aug_cuda_module_probe");
    const char *req = getenv("AUG_REQUIRE_CUDA");
    if (!probe && req && strcmp(req, "1") == 0) fail_msg("no CUDA module with a probe at %s", path);
    return probe != NULL;
}

static const aug__host_api host = {AUG__BACKEND_ABI, AUG_NUM_OPS, AUG_NUM_DTYPES, aug__verror, aug__convert_one,
                                   aug_op_name, AUG__NUM_FAMILIES, aug__family_name};

/* The probe's count with CUDA_VISIBLE_DEVICES = v (NULL: unset). */
static int probe_with(const char *v, const char **why) {
    if (v) setenv("CUDA_VISIBLE_DEVICES", v, 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
    *why = NULL;
    int n = probe(&host, why);
    unsetenv("CUDA_VISIBLE_DEVICES");
    return n;
}

static int emulated(void) {
    const char *b = getenv("AUG_CUDA_BACKEND");
    return b && strcmp(b, "emu") == 0;
}

static void test_visible_devices(void **state) {
    (void)state;
    if (!open_module()) skip();
    static const struct {
        const char *v;
        int n;
    } emu_cases[] = {
        {NULL, 2}, {"", 0}, {"-1", 0}, {"none", 0}, {"0", 1}, {"1", 1}, {"1,0", 2}, {" 1 , 0 ", 2},
        {"0,5,1", 1}, {"2", 0}, {"0,0", 1}, {"0,x", 1}, {"0,,1", 1},
        {"GPU-8f6a1c2e-0000-0000-0000-000000000000", 1}, {"MIG-1,MIG-2,MIG-3", 2}, {"GPU-a,0", 2},
    };
    /* a real machine: N GPUs, N >= 1 (AUG_REQUIRE_CUDA=1 there), counted relative to N */
    const char *why0;
    int all = probe_with(NULL, &why0);
    char past[16];
    snprintf(past, sizeof past, "%d", all > 0 ? all : 0);
    const struct {
        const char *v;
        int n;
    } real_cases[] = {
        {NULL, all}, {"", 0}, {"-1", 0}, {"none", 0}, {"0", 1}, {"0,0", 1}, {"0,x", 1}, {" 0 ", 1}, {past, 0},
    };
    int emu = emulated();
    if (!emu && all < 1) fail_msg("a real GPU machine: the probe counts %d GPUs (%s)", all, why0 ? why0 : "");
    size_t count = emu ? sizeof emu_cases / sizeof emu_cases[0] : sizeof real_cases / sizeof real_cases[0];
    for (size_t i = 0; i < count; i++) {
        const char *v = emu ? emu_cases[i].v : real_cases[i].v;
        int want = emu ? emu_cases[i].n : real_cases[i].n;
        const char *why;
        int n = probe_with(v, &why);
        if (n != want) fail_msg("CUDA_VISIBLE_DEVICES=%s: the probe counts %d, want %d", v ? v : "(unset)", n, want);
        if (n == 0) {
            assert_non_null(why);
            assert_non_null(strstr(why, "no CUDA device (CUDA_VISIBLE_DEVICES="));
        }
    }
}

/* libaug's family names with the last compute family renamed. */
static const char *renamed_family(aug__family f) {
    return f == AUG__FAMILY_JPEG - 1 ? "not a family" : aug__family_name(f);
}

static void test_without_nvml_and_abi(void **state) {
    (void)state;
    if (!open_module()) skip();
    const char *why;
    if (emulated()) { /* the stand-in's NVML can be taken away; a real machine's cannot */
        setenv("AUG_EMU_NO_NVML", "1", 1);
        assert_int_equal(probe_with(NULL, &why), -1); /* cannot tell: libaug starts the runtime to know */
        unsetenv("AUG_EMU_NO_NVML");
    }
    aug__host_api old = host;
    old.abi = AUG__BACKEND_ABI - 1;
    why = NULL;
    assert_int_equal(probe(&old, &why), 0);
    assert_non_null(why);
    assert_non_null(strstr(why, "built for another libaug"));
    old = host; /* a libaug with one family more (or another order) */
    old.num_families = AUG__NUM_FAMILIES + 1;
    why = NULL;
    assert_int_equal(probe(&old, &why), 0);
    assert_non_null(why);
    assert_non_null(strstr(why, "built with another family registry than libaug"));
    old = host;
    old.family_name = renamed_family;
    why = NULL;
    assert_int_equal(probe(&old, &why), 0);
    assert_non_null(why);
    assert_non_null(strstr(why, "another family registry"));
}

/* libaug: the count before and after the runtime started (the stand-in's 2 GPUs, or
 * the real machine's: the probe's count must be the runtime's). */
static void test_library_count(void **state) {
    (void)state;
    const char *b = getenv("AUG_CUDA_BACKEND");
    if (!b || (strcmp(b, "emu") != 0 && strcmp(b, "cuda") != 0) || !open_module()) skip();
    int before = aug_device_count(AUG_DEVICE_CUDA);
    if (emulated()) assert_int_equal(before, 2);
    else assert_true(before >= 1);
    aug_device d = aug_default_device();
    assert_int_equal(d.type, AUG_DEVICE_CUDA);
    assert_int_equal(d.id, 0);
    int64_t shape[1] = {16};
    aug_tensor *t = aug_tensor_empty(1, shape, AUG_FLOAT32, d); /* starts the runtime */
    assert_non_null(t);
    assert_int_equal(aug_device_count(AUG_DEVICE_CUDA), before);
    aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_visible_devices),
        cmocka_unit_test(test_without_nvml_and_abi),
        cmocka_unit_test(test_library_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
