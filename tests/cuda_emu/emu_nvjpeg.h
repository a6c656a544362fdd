/* emu_nvjpeg.h: the nvJPEG stand-in of the CUDA emulation (emu_nvjpeg.cpp), as
 * lib_open / lib_sym (emu_cublas.cpp) reach it. Only in a build that found
 * nvjpeg.h (AUG_EMU_NVJPEG). */
#ifndef AUG_EMU_NVJPEG_H
#define AUG_EMU_NVJPEG_H

namespace aug_emu {
/* The handle lib_open returns for libnvjpeg.so.13 when AUG_EMU_NVJPEG=1 (any
 * value but empty or 0), else nullptr with *why saying so, as a machine without
 * nvJPEG would. */
void *nvjpeg_open(const char **why);
/* Whether lib is that handle. */
bool nvjpeg_is(const void *lib);
/* The stand-in's function called name, or nullptr. */
void *nvjpeg_sym(const char *name);
} /* namespace aug_emu */

#endif
