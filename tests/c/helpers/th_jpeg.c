/* th_jpeg.c: libjpeg-turbo's fast-upsampling decode, the reference for
 * nvJPEG's pixels (th_jpeg.h). */
#include "helpers/th_jpeg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

unsigned char *th_nvjpeg_reference(const void *jpeg, size_t size, int *w, int *h) {
    tjhandle tj = tjInitDecompress();
    if (tj == NULL) return NULL;
    int ss = 0, cs = 0;
    unsigned char *px = NULL;
    if (tjDecompressHeader3(tj, jpeg, (unsigned long)size, w, h, &ss, &cs) == 0 && cs != TJCS_CMYK &&
        cs != TJCS_YCCK) {
        px = malloc((size_t)*w * (size_t)*h * 3);
        if (px != NULL && tjDecompress2(tj, jpeg, (unsigned long)size, px, *w, 0, *h, TJPF_RGB,
                                        TJFLAG_FASTUPSAMPLE | TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING) != 0) {
            fprintf(stderr, "th_nvjpeg_reference: %s\n", tjGetErrorStr2(tj));
            free(px);
            px = NULL;
        }
    }
    tjDestroy(tj);
    return px;
}

int th_nvjpeg_matches(const unsigned char *ref, const unsigned char *got, size_t n, int exact, char *why,
                      size_t why_size) {
    if (memcmp(ref, got, n) == 0) return 1;
    double sum = 0;
    int worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)ref[i] - (int)got[i]);
        sum += d;
        if (d > worst) worst = d, at = i;
    }
    double mean = n ? sum / (double)n : 0;
    snprintf(why, why_size, "mean |diff| %.4f, max |diff| %d at byte %zu (reference %d, decoded %d)%s", mean, worst,
             at, ref[at], got[at], exact ? "; bit-exact expected" : "");
    return !exact && mean <= TH_NVJPEG_MEAN && worst <= TH_NVJPEG_MAX;
}
