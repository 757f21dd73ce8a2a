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

#define OFFERLAB_AVX2 __attribute__((target("avx2"), always_inline)) static inline

/// One bit per byte of a 64-byte block, from the byte masks of its two halves.
OFFERLAB_AVX2 uint64_t offerlab_bits64(__m256i low, __m256i high) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(low) | (uint64_t)(uint32_t)_mm256_movemask_epi8(high) << 32;
}

/// 0xFF where a byte is a backslash or below 0x20; a signed comparison, so every byte from 0x80
/// (negative) too.
OFFERLAB_AVX2 __m256i offerlab_unusual(__m256i bytes) {
    return _mm256_or_si256(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\\')), _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), bytes));
}

// The SSE2 version's steps (see the header), a 64-byte block as two 32-byte halves.
__attribute__((target("avx2"), no_sanitize_address))
int offerlab_json_plain_quotes_avx2(const uint8_t *bytes, long length, uint64_t *words) {
    const __m256i quote = _mm256_set1_epi8('"');
    long offset = 0;
    long word = 0;
    // Whole blocks: whether any byte is not plain is gathered in a vector and tested once.
    __m256i anyUnusual = _mm256_setzero_si256();
    for (; length - offset >= 64; offset += 64) {
        __m256i low = _mm256_loadu_si256((const __m256i *)(bytes + offset));
        __m256i high = _mm256_loadu_si256((const __m256i *)(bytes + offset + 32));
        anyUnusual = _mm256_or_si256(anyUnusual, _mm256_or_si256(offerlab_unusual(low), offerlab_unusual(high)));
        words[word++] = offerlab_bits64(_mm256_cmpeq_epi8(low, quote), _mm256_cmpeq_epi8(high, quote));
    }
    if (!_mm256_testz_si256(anyUnusual, anyUnusual)) return 0;
    if (offset < length) {
        // The last block, cut by `length`: the bits of the bytes after it are masked off.
        uint8_t copy[64];
        long remaining = length - offset;
        const uint8_t *block = offerlab_readable_block(bytes + offset, remaining, copy);
        __m256i low = _mm256_loadu_si256((const __m256i *)block);
        __m256i high = _mm256_loadu_si256((const __m256i *)(block + 32));
        uint64_t inside = ((uint64_t)1 << remaining) - 1;
        if ((offerlab_bits64(offerlab_unusual(low), offerlab_unusual(high)) & inside) != 0) return 0;
        words[word] = offerlab_bits64(_mm256_cmpeq_epi8(low, quote), _mm256_cmpeq_epi8(high, quote)) & inside;
    }
    return 1;
}
#endif
