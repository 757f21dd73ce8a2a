#ifndef OFFERLAB_SIMD_H
#define OFFERLAB_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// The index of the first byte at or after `start` (and before `end`) that ends the plain run of
/// a JSON string: `"`, a backslash, a control character (below 0x20) or a non-ASCII byte (0x80
/// and up); `end` when there is none. Sixteen bytes per step with SSE2 (Swift's SIMD types do
/// not reach `pmovmskb`); `static inline`, so Swift inlines it like its own code.
static inline long offerlab_json_string_stop(const uint8_t *bytes, long start, long end) {
    long index = start;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (index + 16 <= end) {
        __m128i block = _mm_loadu_si128((const __m128i *)(bytes + index));
        // A signed comparison with 0x20 flags the control characters and, being negative,
        // every byte from 0x80.
        __m128i stop = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)), _mm_cmplt_epi8(block, space));
        int mask = _mm_movemask_epi8(stop);
        if (mask != 0) return index + __builtin_ctz((unsigned)mask);
        index += 16;
    }
#endif
    while (index < end) {
        uint8_t byte = bytes[index];
        if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x80) return index;
        index += 1;
    }
    return end;
}

/// One bit per byte of the 64 bytes from `start` (bit k for byte `start + k`; `start < end`, and
/// the bits of bytes at or after `end` are clear): set where the byte is `first`, `second` or
/// `third`, none of them 0. The CSV/TSV parser's block of field stops (a delimiter, a line feed,
/// a quote or a backslash), whose set bits it walks instead of searching field by field. With
/// SSE2, four 16-byte compares; a block cut by `end` is compared in a zero-padded copy, so no
/// byte at or after `end` is read.
static inline uint64_t offerlab_any_of_three_mask64(
    const uint8_t *bytes, long start, long end, uint8_t first, uint8_t second, uint8_t third) {
    long count = end - start;
#if defined(__SSE2__)
    const uint8_t *block = bytes + start;
    uint8_t partial[64];
    if (count < 64) {
        memset(partial, 0, sizeof partial);
        memcpy(partial, block, (size_t)count);
        block = partial;
    }
    const __m128i firstBytes = _mm_set1_epi8((char)first);
    const __m128i secondBytes = _mm_set1_epi8((char)second);
    const __m128i thirdBytes = _mm_set1_epi8((char)third);
    uint64_t mask = 0;
    for (int part = 0; part < 4; part++) {
        __m128i sixteen = _mm_loadu_si128((const __m128i *)(block + 16 * part));
        __m128i found = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(sixteen, firstBytes), _mm_cmpeq_epi8(sixteen, secondBytes)),
            _mm_cmpeq_epi8(sixteen, thirdBytes));
        mask |= (uint64_t)(uint32_t)_mm_movemask_epi8(found) << (16 * part);
    }
    return mask;
#else
    uint64_t mask = 0;
    long limit = count < 64 ? count : 64;
    for (long offset = 0; offset < limit; offset++) {
        uint8_t byte = bytes[start + offset];
        if (byte == first || byte == second || byte == third) mask |= (uint64_t)1 << offset;
    }
    return mask;
#endif
}

#endif
