#define _GNU_SOURCE
#include "offerlab_system.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

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
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

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

void offerlab_prefault(void *start, size_t length) {
#if defined(__linux__)
    advise_whole_pages(start, length, 4096, MADV_POPULATE_WRITE);
#else
    (void)start;
    (void)length;
#endif
}
