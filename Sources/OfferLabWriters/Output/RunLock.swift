import Foundation
import OfferLabSupport

/// An exclusive lock held for the whole run, so two runs of the same job never write at once;
/// or a shared one, held by a reader of the database so that no run writes while it reads.
///
/// `flock(2)` on `<database>.lock`: the kernel releases it when the process ends, however it
/// ends, so a killed run never leaves a stale lock behind.
package final class RunLock {
    private let descriptor: Int32

    /// Waits up to `timeoutSeconds` for the exclusive lock.
    /// - Throws: `.locked` when another run still holds it, `.cannotWrite` when the file cannot be made.
    package init(path: String, timeoutSeconds: Double) throws {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OfferLabError(
                .cannotWrite, "cannot create the lock file \(path): \(String(cString: strerror(errno)))", location: .init(path: path))
        }
        try Self.wait(descriptor, LOCK_EX, timeoutSeconds: timeoutSeconds) {
            "another run of this job holds \(path); waited \(CSVWriter.number(timeoutSeconds)) s (set lock_timeout_seconds to wait longer)"
        }
    }

    /// Waits up to `timeoutSeconds` for the shared lock, without writing anything: nil when
    /// the lock file does not exist (no run ever wrote beside it).
    /// - Throws: `.locked` when a run still holds the lock.
    static func shared(path: String, timeoutSeconds: Double) throws -> RunLock? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        try wait(descriptor, LOCK_SH, timeoutSeconds: timeoutSeconds) {
            "a run is writing the database (it holds \(path)); waited \(CSVWriter.number(timeoutSeconds)) s, try again when it is done"
        }
        return RunLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock `operation` on `descriptor`, closing it when the lock stays taken.
    private static func wait(_ descriptor: Int32, _ operation: Int32, timeoutSeconds: Double, busy: () -> String) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while flock(descriptor, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                close(descriptor)
                throw OfferLabError(.locked, busy())
            }
            usleep(100_000)
        }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
