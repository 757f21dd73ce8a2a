import Foundation

/// An exclusive lock held for the whole run, so two runs of the same job never write at once.
///
/// `flock(2)` on `<database>.lock`: the kernel releases it when the process ends, however it
/// ends, so a killed run never leaves a stale lock behind.
final class RunLock {
    private let descriptor: Int32

    /// Waits up to `timeoutSeconds` for the lock.
    /// - Throws: `.busy` when another run still holds it, `.output` when the file cannot be made.
    init(path: String, timeoutSeconds: Double) throws {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OfferLabError(.output, "cannot create the lock file \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                close(descriptor)
                throw OfferLabError(
                    .busy, "another run of this job holds \(path); waited \(CSVWriter.number(timeoutSeconds)) s (set lock_timeout_seconds to wait longer)")
            }
            usleep(100_000)
        }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
