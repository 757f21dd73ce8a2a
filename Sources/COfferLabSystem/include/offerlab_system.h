#ifndef OFFERLAB_SYSTEM_H
#define OFFERLAB_SYSTEM_H

/// Atomically exchanges two paths (Linux renameat2 with RENAME_EXCHANGE).
/// Returns 0 on success, -1 with errno set otherwise (ENOSYS/EINVAL where unsupported).
int offerlab_exchange_paths(const char *first, const char *second);

#endif
