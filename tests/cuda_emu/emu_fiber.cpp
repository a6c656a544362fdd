/* emu_fiber.cpp: context switch and fiber stacks (see emu_fiber.h). */
#include "emu_fiber.h"

#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace aug_emu {

bool stack_alloc(FiberStack *s, size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size = (size + page - 1) / page * page;
    size_t total = size + page;
    void *m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    /* Stacks grow down: the guard page sits below the lowest usable address, so an
     * overflow faults instead of silently corrupting the neighbouring stack. */
    if (mprotect(m, page, PROT_NONE) != 0) {
        munmap(m, total);
        return false;
    }
    s->map = m;
    s->map_size = total;
    s->lo = (char *)m + page;
    s->size = size;
    return true;
}

void stack_free(FiberStack *s) {
    if (s->map) munmap(s->map, s->map_size);
    *s = FiberStack();
}

void stack_unpoison(const FiberStack *s) {
#if defined(__SANITIZE_ADDRESS__)
    __asan_unpoison_memory_region(s->lo, s->size);
#else
    (void)s;
#endif
}

void asan_start_switch(void **fake_save, const void *bottom, size_t size) {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_start_switch_fiber(fake_save, bottom, size);
#else
    (void)fake_save, (void)bottom, (void)size;
#endif
}

void asan_finish_switch(void *fake_save, const void **old_bottom, size_t *old_size) {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_finish_switch_fiber(fake_save, old_bottom, old_size);
#else
    (void)fake_save, (void)old_bottom, (void)old_size;
#endif
}

} /* namespace aug_emu */

#if AUG_EMU_ASM_SWITCH

/* aug_emu_ctx_switch(void **save_sp, void *load_sp): push the System V callee-saved
 * registers (rbp, rbx, r12-r15) and the floating-point control state (MXCSR, x87
 * control word: callee-saved by the ABI too), store rsp in *save_sp, load load_sp,
 * pop the same in reverse order and return into the other context.
 *
 * aug_emu_ctx_start: where a new context first "returns" to; calls entry(arg) with
 * entry in r13 and arg in r12 (set up by ctx_init). .cfi_undefined rip marks the
 * outermost frame, so unwinders (ASan's, gdb's) stop here. */
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl aug_emu_ctx_switch\n"
    ".hidden aug_emu_ctx_switch\n"
    ".type aug_emu_ctx_switch,@function\n"
    "aug_emu_ctx_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    subq $8, %rsp\n"
    "    stmxcsr (%rsp)\n"
    "    fnstcw 4(%rsp)\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    ldmxcsr (%rsp)\n"
    "    fldcw 4(%rsp)\n"
    "    addq $8, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size aug_emu_ctx_switch, .-aug_emu_ctx_switch\n"
    "\n"
    ".p2align 4\n"
    ".globl aug_emu_ctx_start\n"
    ".hidden aug_emu_ctx_start\n"
    ".type aug_emu_ctx_start,@function\n"
    "aug_emu_ctx_start:\n"
    "    .cfi_startproc\n"
    "    .cfi_undefined rip\n"
    "    movq %r12, %rdi\n"
    "    callq *%r13\n"
    "    ud2\n"
    "    .cfi_endproc\n"
    ".size aug_emu_ctx_start, .-aug_emu_ctx_start\n");

extern "C" __attribute__((visibility("hidden"))) void aug_emu_ctx_switch(void **save_sp, void *load_sp);
extern "C" __attribute__((visibility("hidden"))) void aug_emu_ctx_start();

namespace aug_emu {

void ctx_init(FiberCtx *ctx, const FiberStack *stack, void (*entry)(void *), void *arg) {
    /* The initial frame, as aug_emu_ctx_switch will pop it (top is 16-aligned):
     *   top-8 return address = aug_emu_ctx_start; after `ret` rsp = top, so the
     *         `call` there enters entry() with rsp = 8 mod 16 as the ABI requires
     *   top-16 rbp = 0 (end of the frame-pointer chain), top-24 rbx,
     *   top-32 r12 = arg, top-40 r13 = entry, top-48 r14, top-56 r15,
     *   top-64 MXCSR (4 bytes) and x87 control word, copied from the caller. */
    uintptr_t top = ((uintptr_t)stack->lo + stack->size) & ~(uintptr_t)15;
    uint64_t *f = (uint64_t *)(top - 64);
    std::memset(f, 0, 64);
    uint32_t mxcsr;
    uint16_t fcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));
    std::memcpy((char *)f, &mxcsr, 4);
    std::memcpy((char *)f + 4, &fcw, 2);
    f[3] = (uint64_t)(uintptr_t)entry; /* r13 at top-40 */
    f[4] = (uint64_t)(uintptr_t)arg;   /* r12 at top-32 */
    f[7] = (uint64_t)(uintptr_t)&aug_emu_ctx_start;
    ctx->sp = f;
}

void ctx_switch(FiberCtx *from, FiberCtx *to) { aug_emu_ctx_switch(&from->sp, to->sp); }

} /* namespace aug_emu */

#else /* ucontext fallback */

namespace aug_emu {

/* makecontext passes int arguments only: split the two pointers into halves. */
static void uc_entry(unsigned e_hi, unsigned e_lo, unsigned a_hi, unsigned a_lo) {
    void (*entry)(void *) = (void (*)(void *))(((uintptr_t)e_hi << 32) | e_lo);
    void *arg = (void *)(((uintptr_t)a_hi << 32) | a_lo);
    entry(arg);
    __builtin_trap();
}

void ctx_init(FiberCtx *ctx, const FiberStack *stack, void (*entry)(void *), void *arg) {
    getcontext(&ctx->uc);
    ctx->uc.uc_stack.ss_sp = stack->lo;
    ctx->uc.uc_stack.ss_size = stack->size;
    ctx->uc.uc_link = nullptr;
    uint64_t e = (uint64_t)(uintptr_t)entry, a = (uint64_t)(uintptr_t)arg;
    makecontext(&ctx->uc, (void (*)())uc_entry, 4, (unsigned)(e >> 32), (unsigned)e, (unsigned)(a >> 32),
                (unsigned)a);
}

void ctx_switch(FiberCtx *from, FiberCtx *to) { swapcontext(&from->uc, &to->uc); }

} /* namespace aug_emu */

#endif
