#ifndef OFFERLAB_ISAL_H
#define OFFERLAB_ISAL_H

#include <stddef.h>
#include <stdint.h>

/// An ISA-L (igzip) gzip inflater. ISA-L is optional: this shim compiles without its header and
/// loads `libisal.so.2` at run time, so OfferLab builds and runs (with zlib) where it is absent.
typedef struct offerlab_isal_inflater offerlab_isal_inflater;

/// 1 when ISA-L can be used: the build saw <isa-l/igzip_lib.h> and libisal.so.2 loaded.
/// Thread-safe; the library is loaded once.
int offerlab_isal_available(void);

/// 1 when this build saw <isa-l/igzip_lib.h> (libisal-dev), so that it can use ISA-L where
/// libisal.so.2 loads; 0 when it was built without it and never can.
int offerlab_isal_built_in(void);

/// A new inflater for gzip members (header, deflate data, CRC-32 and length checked), or NULL
/// when ISA-L is not available or memory is short.
offerlab_isal_inflater *offerlab_isal_create(void);

void offerlab_isal_destroy(offerlab_isal_inflater *inflater);

/// Makes the inflater ready for a new gzip member.
void offerlab_isal_reset(offerlab_isal_inflater *inflater);

/// Inflates from `input` into `output`, reporting the bytes consumed and produced, and whether the
/// member ended (its trailer read and checked; bytes after it are not consumed).
/// Returns 0, or an ISA-L error code (negative: corrupt data; 6: a preset dictionary is needed).
int offerlab_isal_inflate(
    offerlab_isal_inflater *inflater, const uint8_t *input, size_t input_count, uint8_t *output,
    size_t output_count, size_t *consumed, size_t *produced, int *member_ended);

/// Error codes of `offerlab_isal_inflate` (ISA-L's values).
enum {
    OFFERLAB_ISAL_NEED_DICT = 6,
    OFFERLAB_ISAL_INVALID_BLOCK = -1,
    OFFERLAB_ISAL_INVALID_SYMBOL = -2,
    OFFERLAB_ISAL_INVALID_LOOKBACK = -3,
    OFFERLAB_ISAL_INVALID_WRAPPER = -4,
    OFFERLAB_ISAL_UNSUPPORTED_METHOD = -5,
    OFFERLAB_ISAL_INCORRECT_CHECKSUM = -6,
};

#endif
