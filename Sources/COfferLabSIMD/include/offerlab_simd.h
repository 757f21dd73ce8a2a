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

/// The last block of a line, `remaining` (< 64) bytes at `block`, to be read whole: `block`
/// itself when its 64 bytes stay within its memory page (they cannot fault), else a zero-padded
/// copy of its bytes in `copy`.
static inline const uint8_t *offerlab_readable_block(const uint8_t *block, long remaining, uint8_t copy[64]) {
    if (((uintptr_t)block & 4095) <= 4096 - 64) return block;
    __builtin_memset(copy, 0, 64);
    __builtin_memcpy(copy, block, (size_t)remaining);
    return copy;
}

/// Fills `words` with the quote bitmap of the `length` bytes at `bytes` (bit `k % 64` of
/// `words[k / 64]` is set when byte `k` is `"`; no bit at or beyond `length`) and returns 1 when
/// the bytes are plain ASCII: no backslash, no control character (below 0x20), no byte from
/// 0x80. Returns 0 when they are not (the words are then not to be used). Writes
/// `(length + 63) / 64` words. In a plain JSON line every quote delimits a string, so the bitmap
/// tells where each string ends without scanning it.
///
/// Reads whole blocks of 64 bytes: the last one may extend past `length`, which is read from the
/// bytes only when it stays within their memory page (it cannot fault), else from a copy. Those
/// bytes are never used, hence no AddressSanitizer checks (the fuzz builds).
///
/// With AVX2 (checked once, at load: `offerlab_cpu_has_avx2()`), 32 bytes per step
/// (`offerlab_json_plain_quotes_avx2`, a call: a function built for AVX2 is not inlined into code
/// built without it); else 16 (`offerlab_json_plain_quotes_sse2`, inlined). The same bits either
/// way (`JSONQuoteBitmapTests` runs both; the `json-line` fuzz target compares them).
static inline int offerlab_json_plain_quotes_sse2(const uint8_t *bytes, long length, uint64_t *words);

/// 1 when the CPU has AVX2; set before `main` runs (read it through `offerlab_cpu_has_avx2()`).
extern int offerlab_avx2_detected;

/// 1 when the CPU has AVX2.
static inline int offerlab_cpu_has_avx2(void) { return offerlab_avx2_detected; }

/// `offerlab_json_plain_quotes` 32 bytes per step; call only when `offerlab_cpu_has_avx2()`.
int offerlab_json_plain_quotes_avx2(const uint8_t *bytes, long length, uint64_t *words);

static inline int offerlab_json_plain_quotes(const uint8_t *bytes, long length, uint64_t *words) {
#if defined(__x86_64__)
    if (offerlab_avx2_detected) return offerlab_json_plain_quotes_avx2(bytes, length, words);
#endif
    return offerlab_json_plain_quotes_sse2(bytes, length, words);
}

/// `offerlab_json_plain_quotes` with SSE2, 16 bytes per step (or byte by byte without SSE2).
__attribute__((no_sanitize_address))
static inline int offerlab_json_plain_quotes_sse2(const uint8_t *bytes, long length, uint64_t *words) {
    long offset = 0;
    long word = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    // Whole blocks: whether any byte is not plain is gathered in a vector and tested once.
    __m128i anyUnusual = _mm_setzero_si128();
    for (; length - offset >= 64; offset += 64) {
        uint64_t quotes = 0;
        for (int part = 0; part < 4; part++) {
            __m128i chunk = _mm_loadu_si128((const __m128i *)(bytes + offset + 16 * part));
            // A signed comparison with 0x20 flags the control characters and, being negative,
            // every byte from 0x80.
            anyUnusual = _mm_or_si128(anyUnusual, _mm_or_si128(_mm_cmpeq_epi8(chunk, backslash), _mm_cmplt_epi8(chunk, space)));
            quotes |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, quote)) << (16 * part);
        }
        words[word++] = quotes;
    }
    if (_mm_movemask_epi8(anyUnusual) != 0) return 0;
    if (offset < length) {
        // The last block, cut by `length`: the bits of the bytes after it are masked off.
        uint8_t copy[64];
        long remaining = length - offset;
        const uint8_t *block = offerlab_readable_block(bytes + offset, remaining, copy);
        uint64_t quotes = 0;
        uint64_t unusual = 0;
        for (int part = 0; part < 4; part++) {
            __m128i chunk = _mm_loadu_si128((const __m128i *)(block + 16 * part));
            __m128i odd = _mm_or_si128(_mm_cmpeq_epi8(chunk, backslash), _mm_cmplt_epi8(chunk, space));
            quotes |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, quote)) << (16 * part);
            unusual |= (uint64_t)(uint32_t)_mm_movemask_epi8(odd) << (16 * part);
        }
        uint64_t inside = ((uint64_t)1 << remaining) - 1;
        if ((unusual & inside) != 0) return 0;
        words[word] = quotes & inside;
    }
    return 1;
#else
    while (offset < length) {
        uint64_t quotes = 0;
        long end = offset + 64 < length ? offset + 64 : length;
        for (long index = offset; index < end; index++) {
            uint8_t byte = bytes[index];
            if (byte == '\\' || byte < 0x20 || byte >= 0x80) return 0;
            if (byte == '"') quotes |= (uint64_t)1 << (index - offset);
        }
        words[word++] = quotes;
        offset += 64;
    }
    return 1;
#endif
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
