// Most of the target's functions are `static inline` in its header; the ones built for a
// particular instruction set, and what tells whether the CPU has it, are here.
#include "offerlab_simd.h"

int offerlab_avx2_detected = 0;

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((constructor)) static void offerlab_detect_cpu(void) {
    __builtin_cpu_init();
    offerlab_avx2_detected = __builtin_cpu_supports("avx2") ? 1 : 0;
}

// The SSE2 version's steps, two 32-byte halves per 64-byte block (see the header).
__attribute__((target("avx2"), no_sanitize_address))
int offerlab_json_plain_quotes_avx2(const uint8_t *bytes, long length, uint64_t *words) {
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    const __m256i space = _mm256_set1_epi8(0x20);
    long offset = 0;
    long word = 0;
    __m256i anyUnusual = _mm256_setzero_si256();
    for (; length - offset >= 64; offset += 64) {
        __m256i low = _mm256_loadu_si256((const __m256i *)(bytes + offset));
        __m256i high = _mm256_loadu_si256((const __m256i *)(bytes + offset + 32));
        // A signed comparison with 0x20 flags the control characters and, being negative,
        // every byte from 0x80.
        anyUnusual = _mm256_or_si256(
            anyUnusual,
            _mm256_or_si256(
                _mm256_or_si256(_mm256_cmpeq_epi8(low, backslash), _mm256_cmpgt_epi8(space, low)),
                _mm256_or_si256(_mm256_cmpeq_epi8(high, backslash), _mm256_cmpgt_epi8(space, high))));
        uint64_t lowQuotes = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, quote));
        uint64_t highQuotes = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, quote));
        words[word++] = lowQuotes | highQuotes << 32;
    }
    if (!_mm256_testz_si256(anyUnusual, anyUnusual)) return 0;
    if (offset < length) {
        const uint8_t *block = bytes + offset;
        uint8_t tail[64];
        long remaining = length - offset;
        if (((uintptr_t)block & 4095) > 4096 - 64) {
            __builtin_memset(tail, 0, sizeof tail);
            __builtin_memcpy(tail, block, (size_t)remaining);
            block = tail;
        }
        __m256i low = _mm256_loadu_si256((const __m256i *)block);
        __m256i high = _mm256_loadu_si256((const __m256i *)(block + 32));
        uint64_t quotes = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, quote))
            | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, quote)) << 32;
        uint64_t unusual =
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(low, backslash), _mm256_cmpgt_epi8(space, low)))
            | (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(high, backslash), _mm256_cmpgt_epi8(space, high)))
                << 32;
        uint64_t inside = ((uint64_t)1 << remaining) - 1;
        if ((unusual & inside) != 0) return 0;
        words[word] = quotes & inside;
    }
    return 1;
}
#endif
