import Foundation
import Synchronization

/// Progress lines for a person at a terminal; a run under cron passes none.
public final class ProgressReporter: Sendable {
    private let start = Date()
    /// When the last line was said; held while a line is written, so that lines never interleave.
    private let lastSaid = Mutex(Date())
    /// How long a file being read goes without a line before it says how far it has got.
    private let quietInterval: TimeInterval
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes, its `\n` included (tests keep them).
    public init(
        quietInterval: TimeInterval = 1, write: @escaping @Sendable (String) -> Void = { StandardStreams.writeError($0) }
    ) {
        self.quietInterval = quietInterval
        self.write = write
    }

    public func say(_ message: String) {
        lastSaid.withLock { writeLine(message, lastSaid: &$0) }
    }

    /// Writes a line with the time since the start (`lastSaid`'s lock held).
    private func writeLine(_ message: String, lastSaid: inout Date) {
        lastSaid = Date()
        write(String(format: "%6.1fs", lastSaid.timeIntervalSince(start)) + "  \(message)\n")
    }

    /// A file's `LogFileScanner.onBytesRead` (or a table file's): how far the file has got,
    /// whenever nothing was said for `quietInterval`, so that a run of one large file, or a large
    /// assignment table, is not silent until it is read.
    package func readingFile(_ path: String, named name: String) -> @Sendable (_ fileBytes: Int64) -> Void {
        let size = Int64(fileSize(atPath: path) ?? 0)
        let file = (path as NSString).lastPathComponent
        return { [self] bytes in
            lastSaid.withLock { lastSaid in
                guard Date().timeIntervalSince(lastSaid) >= quietInterval else { return }
                let megabytes = String(format: "%.1f MB", Double(size > 0 ? size : bytes) / 1e6)
                let howFar = size > 0 ? "\(min(100, bytes * 100 / size)) % of \(megabytes)" : "\(megabytes) read"
                writeLine("reading \(name) (\(file)): \(howFar)", lastSaid: &lastSaid)
            }
        }
    }
}
