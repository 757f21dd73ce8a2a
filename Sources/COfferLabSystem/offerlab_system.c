#define _GNU_SOURCE
#include "offerlab_system.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int offerlab_exchange_paths(const char *first, const char *second) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#if defined(__linux__)
/// `madvise(advice)` on the whole `page`-sized pages inside `[start, start + length)`.
static void advise_whole_pages(void *start, size_t length, uintptr_t page, int advice) {
    uintptr_t first = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)start + length) & ~(page - 1);
    if (end > first) (void)madvise((void *)first, end - first, advice);
}
#endif

void offerlab_advise_huge_pages(void *start, size_t length) {
#if defined(__linux__)
    advise_whole_pages(start, length, (uintptr_t)2 << 20, MADV_HUGEPAGE);
#else
    (void)start;
    (void)length;
#endif
}

void offerlab_release_freed_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

// XXH64, as specified in xxHash's doc/xxhash_spec.md.
static const uint64_t xxh_prime1 = 0x9E3779B185EBCA87ULL;
static const uint64_t xxh_prime2 = 0xC2B2AE3D27D4EB4FULL;
static const uint64_t xxh_prime3 = 0x165667B19E3779F9ULL;
static const uint64_t xxh_prime4 = 0x85EBCA77C2B2AE63ULL;
static const uint64_t xxh_prime5 = 0x27D4EB2F165667C5ULL;

static inline uint64_t xxh_rotl(uint64_t value, int bits) { return (value << bits) | (value >> (64 - bits)); }

static inline uint64_t xxh_read64(const uint8_t *bytes) {
    uint64_t value;
    memcpy(&value, bytes, 8);
    return value; // little-endian machines only, as the rest of the project
}

static inline uint32_t xxh_read32(const uint8_t *bytes) {
    uint32_t value;
    memcpy(&value, bytes, 4);
    return value;
}

static inline uint64_t xxh_round(uint64_t lane, uint64_t input) {
    return xxh_rotl(lane + input * xxh_prime2, 31) * xxh_prime1;
}

static inline uint64_t xxh_merge(uint64_t hash, uint64_t lane) {
    return (hash ^ xxh_round(0, lane)) * xxh_prime1 + xxh_prime4;
}

static inline void xxh_stripe(uint64_t lanes[4], const uint8_t *bytes) {
    for (int lane = 0; lane < 4; lane++) lanes[lane] = xxh_round(lanes[lane], xxh_read64(bytes + 8 * lane));
}

void offerlab_xxh64_reset(offerlab_xxh64_state *state, uint64_t seed) {
    memset(state, 0, sizeof *state);
    state->seed = seed;
    state->lanes[0] = seed + xxh_prime1 + xxh_prime2;
    state->lanes[1] = seed + xxh_prime2;
    state->lanes[2] = seed;
    state->lanes[3] = seed - xxh_prime1;
}

void offerlab_xxh64_update(offerlab_xxh64_state *state, const void *bytes, size_t length) {
    const uint8_t *next = bytes;
    const uint8_t *end = next + length;
    state->total += length;
    if (state->buffered + length < 32) {
        if (length > 0) memcpy(state->buffer + state->buffered, next, length);
        state->buffered += (uint32_t)length;
        return;
    }
    if (state->buffered > 0) {
        size_t taken = 32 - state->buffered;
        memcpy(state->buffer + state->buffered, next, taken);
        xxh_stripe(state->lanes, state->buffer);
        next += taken;
        state->buffered = 0;
    }
    // Four lanes in registers: through the state, every stripe would store and reload them.
    uint64_t lanes[4] = {state->lanes[0], state->lanes[1], state->lanes[2], state->lanes[3]};
    for (; end - next >= 32; next += 32) xxh_stripe(lanes, next);
    memcpy(state->lanes, lanes, sizeof lanes);
    state->buffered = (uint32_t)(end - next);
    if (state->buffered > 0) memcpy(state->buffer, next, state->buffered);
}

uint64_t offerlab_xxh64_digest(const offerlab_xxh64_state *state) {
    uint64_t hash;
    if (state->total >= 32) {
        const uint64_t *lanes = state->lanes;
        hash = xxh_rotl(lanes[0], 1) + xxh_rotl(lanes[1], 7) + xxh_rotl(lanes[2], 12) + xxh_rotl(lanes[3], 18);
        for (int lane = 0; lane < 4; lane++) hash = xxh_merge(hash, lanes[lane]);
    } else {
        hash = state->seed + xxh_prime5;
    }
    hash += state->total;
    const uint8_t *next = state->buffer;
    const uint8_t *end = next + state->buffered;
    for (; end - next >= 8; next += 8) hash = xxh_rotl(hash ^ xxh_round(0, xxh_read64(next)), 27) * xxh_prime1 + xxh_prime4;
    if (end - next >= 4) {
        hash = xxh_rotl(hash ^ (uint64_t)xxh_read32(next) * xxh_prime1, 23) * xxh_prime2 + xxh_prime3;
        next += 4;
    }
    for (; next < end; next++) hash = xxh_rotl(hash ^ (uint64_t)*next * xxh_prime5, 11) * xxh_prime1;
    hash ^= hash >> 33;
    hash *= xxh_prime2;
    hash ^= hash >> 29;
    hash *= xxh_prime3;
    hash ^= hash >> 32;
    return hash;
}
