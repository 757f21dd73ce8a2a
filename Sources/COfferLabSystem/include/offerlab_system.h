#ifndef OFFERLAB_SYSTEM_H
#define OFFERLAB_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

/// Atomically exchanges two paths (Linux renameat2 with RENAME_EXCHANGE).
/// Returns 0 on success, -1 with errno set otherwise (ENOSYS/EINVAL where unsupported).
int offerlab_exchange_paths(const char *first, const char *second);

/// Asks the kernel to back the whole 2 MiB pages inside `[start, start + length)` with huge
/// pages (Linux `madvise(MADV_HUGEPAGE)`), before they are first written: a few page faults
/// instead of one per 4 KiB, and fewer TLB misses. Only advice: nothing happens where it is
/// not supported.
void offerlab_advise_huge_pages(void *start, size_t length);

/// Hands the whole free pages the C allocator keeps back to the kernel (glibc `malloc_trim(0)`;
/// nothing elsewhere). Arrays freed below glibc's mmap threshold stay with the allocator: their
/// pages cannot back a new large array until they are handed back.
void offerlab_release_freed_memory(void);

/// Starts loading the cache line at `address` (a hint: never faults). Inlined into Swift.
static inline void offerlab_prefetch(const void *address) { __builtin_prefetch(address); }

/// XXH64 (xxHash, 64-bit), fed in pieces: identifies a log file's bytes and the program that
/// parsed them in the parsed-log cache. Not cryptographic: it tells files apart, it does not
/// resist forgery.
typedef struct {
    uint64_t total;
    uint64_t lanes[4];
    uint8_t buffer[32];
    uint32_t buffered;
    uint64_t seed;
} offerlab_xxh64_state;

void offerlab_xxh64_reset(offerlab_xxh64_state *state, uint64_t seed);
void offerlab_xxh64_update(offerlab_xxh64_state *state, const void *bytes, size_t length);
/// The hash of every byte given since the reset (the state may be fed on).
uint64_t offerlab_xxh64_digest(const offerlab_xxh64_state *state);

#endif
