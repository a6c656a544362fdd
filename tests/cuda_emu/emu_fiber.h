/* emu_fiber.h: fiber contexts and stacks for the CUDA emulation (internal).
 *
 * One fiber per started GPU thread of the running block, each on its own mmap'd
 * stack with a guard page below it. On x86-64 a context switch is a hand-written
 * register switch (emu_fiber.cpp: callee-saved registers, MXCSR and the x87
 * control word; ~5 ns); elsewhere ucontext (10-20x slower, but portable).
 * AddressSanitizer is told about every switch (start/finish_switch_fiber), so the
 * emulation runs clean under -fsanitize=address. */
#ifndef AUG_EMU_FIBER_H
#define AUG_EMU_FIBER_H

#include <cstddef>

#if !defined(AUG_EMU_ASM_SWITCH) /* -DAUG_EMU_ASM_SWITCH=0 forces ucontext (to test it) */
#if defined(__x86_64__)
#define AUG_EMU_ASM_SWITCH 1
#else
#define AUG_EMU_ASM_SWITCH 0
#endif
#endif
#if !AUG_EMU_ASM_SWITCH
#include <ucontext.h>
#endif

namespace aug_emu {

struct FiberCtx {
#if AUG_EMU_ASM_SWITCH
    void *sp = nullptr; /* saved stack pointer; the registers are on that stack */
#else
    ucontext_t uc;
#endif
};

/* A stack: [lo, lo + size) usable, a PROT_NONE guard page just below lo. */
struct FiberStack {
    void *map = nullptr; /* the mapping, guard page included */
    size_t map_size = 0;
    void *lo = nullptr;
    size_t size = 0;
};
bool stack_alloc(FiberStack *s, size_t size);
void stack_free(FiberStack *s);
/* Forget ASan's poisoning of a stack whose frames were abandoned (a fiber that
 * never finished because its block failed). */
void stack_unpoison(const FiberStack *s);

/* Prepare ctx to call entry(arg) on the stack when first switched to. entry must
 * never return (it switches away for good instead). */
void ctx_init(FiberCtx *ctx, const FiberStack *stack, void (*entry)(void *), void *arg);
/* Save the current context in from and continue in to. */
void ctx_switch(FiberCtx *from, FiberCtx *to);

/* AddressSanitizer fiber annotations (no-ops without ASan). Before a switch:
 * start(&fake_save_of_the_fiber_being_left or nullptr if it is finished, target
 * stack); right after a switch, on the new stack: finish(fake_save_of_this_fiber,
 * &bottom_of_the_stack_left, &its_size). */
void asan_start_switch(void **fake_save, const void *bottom, size_t size);
void asan_finish_switch(void *fake_save, const void **old_bottom, size_t *old_size);

} /* namespace aug_emu */

#endif
