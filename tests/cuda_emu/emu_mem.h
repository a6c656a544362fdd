/* emu_mem.h: the recording side of AUG__MEM_LOAD / AUG__MEM_STORE in the emulated
 * CUDA build (included by scalar/hd.h and cuda_emu.h; the counter itself is
 * emu_memstats.cpp). A global load or store of n bytes at p by the running GPU
 * thread, named by its source line; one relaxed load of a flag while recording
 * is off. */
#ifndef AUG_EMU_MEM_H
#define AUG_EMU_MEM_H

namespace aug_emu {
/* Nonzero while accesses are recorded (AUG_EMU_MEMSTATS=1, aug_emu_memstats_enable). */
extern int g_mem_record;
/* Records the access for the running thread's warp; ignored outside a kernel. */
void mem_record(const char *file, int line, const void *p, unsigned n, int store);
} /* namespace aug_emu */

#define AUG__MEM_ACCESS_(p, n, st)                                                               \
    (__atomic_load_n(&::aug_emu::g_mem_record, __ATOMIC_RELAXED)                                 \
         ? ::aug_emu::mem_record(__FILE__, __LINE__, (const void *)(p), (unsigned)(n), (st))       \
         : (void)0)
#define AUG__MEM_LOAD(p, n) AUG__MEM_ACCESS_(p, n, 0)
#define AUG__MEM_STORE(p, n) AUG__MEM_ACCESS_(p, n, 1)

#endif
