/* core/seed.c: the per-sample stream seeds of include/aug/random.h
 * (aug_stream_seed, aug_sample_id): splitmix64 finalisers over FNV-1a hashes
 * of the stream name and the sample key. Pure 64-bit integer arithmetic, the
 * same on every platform (docs/random.md, "Per-sample streams"). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "aug/random.h"

/* Sebastiano Vigna's splitmix64 output function (one step of the generator). */
static uint64_t splitmix64(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 64-bit FNV-1a of len bytes (NULL: none). */
static uint64_t fnv1a64(const unsigned char *p, size_t len) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; p != NULL && i < len; i++) {
        h ^= (uint64_t)p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

uint64_t aug_stream_seed(uint64_t seed, uint64_t epoch, const char *stream) {
    uint64_t h = fnv1a64((const unsigned char *)stream, stream != NULL ? strlen(stream) : 0);
    return splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ h);
}

uint64_t aug_sample_id(const void *key, size_t len) { return splitmix64(fnv1a64(key, key != NULL ? len : 0)); }
