#!/bin/sh
# tests/fuzz/run.sh: build and run the libFuzzer targets (STYLE 11: fuzz targets for
# everything that parses untrusted bytes).
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]   build, then fuzz each target SECONDS (default 60)
#   tests/fuzz/run.sh --smoke                 build, then run each target once over its seeds
#   tests/fuzz/run.sh --build                 build only
#
# Targets: fuzz_jpeg (aug_jpeg_info / aug_decoder_decode), fuzz_jpeg_markers (the same
# through the whole decode path, with a structure-aware mutator of JPEG marker segments),
# fuzz_reshape (aug_reshape / aug_reshape_batch), fuzz_view (aug_tensor_from_storage +
# indexing / views), fuzz_png (aug_image_describe / aug_decoder_decode_ex on PNG bytes, every mode and dtype),
# fuzz_webp, fuzz_tiff and fuzz_avif (aug_image_describe / aug_decoder_decode_ex on WebP / TIFF /
# AVIF bytes).
# The library's C sources are compiled directly with clang and
# -fsanitize=fuzzer-no-link,address,undefined into $BUILD (default build-fuzz/ in
# the repository root); each harness links them with -fsanitize=fuzzer. Crashes are
# written to $BUILD/artifacts/, the growing corpora to $BUILD/corpus/<target>/ (seeded
# from tests/fuzz/seeds/<target>/ and, for JPEG, python/augpy/samples/).
# Targets run one after another, each in one process (no -jobs/-workers: with
# -jobs=1 libFuzzer forks a worker logging to ./fuzz-0.log); machines are small and shared.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-fuzz}
CC=${CC:-clang}
MODE=fuzz
SECONDS_EACH=60
case "${1:-}" in
--smoke) MODE=smoke; shift ;;
--build) MODE=build; shift ;;
[0-9]*) SECONDS_EACH=$1; shift ;;
esac
TARGETS=${*:-fuzz_jpeg fuzz_jpeg_markers fuzz_reshape fuzz_view fuzz_png fuzz_webp fuzz_tiff fuzz_avif}

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# Same language and FP settings as CMakeLists.txt (C11 + GNU extensions, no FMA contraction).
CFLAGS="-std=gnu11 -g -O1 -ffp-contract=off -fno-math-errno -fno-trapping-math $SAN -D_GNU_SOURCE"
# The libFuzzer convention: the library skips checks that only stop fuzzing (codec/png.c: PNG CRCs).
CFLAGS="$CFLAGS -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
CFLAGS="$CFLAGS -DAUG_VERSION_STRING=\"fuzz\" -I$ROOT/include -I$ROOT/src"
CBLAS_INC=$(dirname "$(ls /usr/include/*/openblas-pthread/cblas.h /usr/include/openblas/cblas.h /usr/include/cblas.h 2>/dev/null | head -n1)")
CFLAGS="$CFLAGS -I$CBLAS_INC $(pkg-config --cflags libturbojpeg libjpeg spng libwebp libwebpdemux libtiff-4 libavif)"
LIBS="$(pkg-config --libs libturbojpeg libjpeg spng libwebp libwebpdemux libtiff-4 libavif) -lopenblas -lpthread -lm"

mkdir -p "$BUILD/obj" "$BUILD/artifacts"
# Library objects (rebuilt when the source is newer).
OBJS=""
for src in "$ROOT"/src/core/*.c "$ROOT"/src/cpu/*.c "$ROOT"/src/codec/*.c; do
    obj="$BUILD/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$ROOT/src" "$ROOT/include" -name '*.h' -newer "$obj" | head -n1)" ]; then
        echo "cc $src"
        $CC $CFLAGS -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
    fi
    OBJS="$OBJS $obj"
done
for t in $TARGETS; do
    echo "link $t"
    $CC $CFLAGS -fsanitize=fuzzer "$ROOT/tests/fuzz/$t.c" $OBJS $LIBS -o "$BUILD/$t"
done
[ "$MODE" = build ] && exit 0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export AUG_NUM_THREADS=${AUG_NUM_THREADS:-1}
for t in $TARGETS; do
    seeds="$ROOT/tests/fuzz/seeds/$t"
    extra=""
    case $t in fuzz_jpeg*) extra="$ROOT/python/augpy/samples" ;; esac
    # the marker mutator starts from fuzz_jpeg's seeds (it needs files that parse)
    [ "$t" = fuzz_jpeg_markers ] && seeds="$ROOT/tests/fuzz/seeds/fuzz_jpeg"
    dict=""
    [ -f "$ROOT/tests/fuzz/$t.dict" ] && dict="-dict=$ROOT/tests/fuzz/$t.dict"
    if [ "$MODE" = smoke ]; then
        echo "== $t: seeds once"
        # -runs=0: execute every seed file once and exit (non-zero on any crash, leak or UB).
        "$BUILD/$t" -runs=0 $dict "$seeds" $extra
    else
        corpus="$BUILD/corpus/$t"
        mkdir -p "$corpus"
        echo "== $t: ${SECONDS_EACH}s"
        "$BUILD/$t" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-" $dict \
            "$corpus" "$seeds" $extra
    fi
done
