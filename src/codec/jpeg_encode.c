/* codec/jpeg_encode.c: packed RGB / gray pixels to a JPEG file with
 * libjpeg-turbo's tjCompress2 (codec/jpeg_encode.h). TJFLAG_ACCURATEDCT: without
 * it TurboJPEG 2.x encodes qualities below 96 with the fast integer DCT
 * (JDCT_IFAST), where libjpeg's own default, which PIL and OpenCV keep, is the
 * accurate JDCT_ISLOW. TurboJPEG's output buffer is copied into a malloc'd
 * one, so the caller frees with free(). */
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "codec/jpeg_encode.h"

aug_status aug__jpeg_encode_packed(const char *func, const uint8_t *pixels, int height, int width, int channels,
                                   int quality, uint8_t **data, size_t *size) {
    tjhandle tj = tjInitCompress();
    if (tj == NULL)
        return aug__error(AUG_ERR_MEMORY, func, "cannot create a TurboJPEG compressor: %s", tjGetErrorStr2(NULL));
    unsigned char *buf = NULL;
    unsigned long len = 0;
    const int gray = channels == 1;
    int rc = tjCompress2(tj, pixels, width, width * channels, height, gray ? TJPF_GRAY : TJPF_RGB, &buf, &len,
                         gray ? TJSAMP_GRAY : TJSAMP_420, quality, TJFLAG_ACCURATEDCT);
    aug_status st = AUG_OK;
    if (rc != 0) {
        st = aug__error(AUG_ERR_JPEG, func, "%s", tjGetErrorStr2(tj));
    } else {
        uint8_t *out = malloc(len > 0 ? len : 1);
        if (out == NULL) {
            st = AUG__NOMEM(func);
        } else {
            memcpy(out, buf, len);
            *data = out;
            *size = len;
        }
    }
    tjFree(buf);
    tjDestroy(tj);
    return st;
}
