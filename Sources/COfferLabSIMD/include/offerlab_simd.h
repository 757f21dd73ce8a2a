#ifndef OFFERLAB_SIMD_H
#define OFFERLAB_SIMD_H

#include <stddef.h>
#include <stdint.h>
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

/// The index of the first byte at or after `start` (and before `end`) equal to `first`, `second`
/// or `third`; `end` when there is none. Sixteen bytes per step with SSE2: the CSV/TSV parser's
/// search for the end of a plain field (a delimiter, a line feed, a quote or a backslash).
static inline long offerlab_find_any_of_three(
    const uint8_t *bytes, long start, long end, uint8_t first, uint8_t second, uint8_t third) {
    long index = start;
#if defined(__SSE2__)
    const __m128i firstBytes = _mm_set1_epi8((char)first);
    const __m128i secondBytes = _mm_set1_epi8((char)second);
    const __m128i thirdBytes = _mm_set1_epi8((char)third);
    while (index + 16 <= end) {
        __m128i block = _mm_loadu_si128((const __m128i *)(bytes + index));
        __m128i found = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(block, firstBytes), _mm_cmpeq_epi8(block, secondBytes)),
            _mm_cmpeq_epi8(block, thirdBytes));
        int mask = _mm_movemask_epi8(found);
        if (mask != 0) return index + __builtin_ctz((unsigned)mask);
        index += 16;
    }
#endif
    while (index < end) {
        uint8_t byte = bytes[index];
        if (byte == first || byte == second || byte == third) return index;
        index += 1;
    }
    return end;
}

#endif
