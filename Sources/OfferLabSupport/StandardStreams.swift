import Foundation

/// Standard output written whole or not at all (docs/reliability.md, Disk full, unwritable outputs): a write that fails
/// (full disk, closed pipe, `/dev/full`) is an error with exit 73, never a crash, a cut-off file
/// and exit 0. Standard error is best effort: when it cannot be written there is no one to tell.
public enum StandardStreams {
    /// A closed pipe makes `write` fail with EPIPE instead of killing the process silently.
    public static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` to standard output, every byte.
    /// - Throws: `.cannotWrite` naming the reason (exit 73).
    public static func write(_ text: String) throws(OfferLabError) {
        var bytes = text
        let written = bytes.withUTF8 { writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
        guard written else {
            let reason = String(cString: strerror(errno))
            throw OfferLabError(.cannotWrite, "cannot write to standard output: \(reason)", location: .init(path: "-"))
        }
    }

    /// Writes `line` and a newline to standard output.
    public static func writeLine(_ line: String) throws(OfferLabError) {
        try write(line + "\n")
    }

    /// Writes `text` to standard error; a failure is ignored.
    public static func writeError(_ text: String) {
        var bytes = text
        _ = bytes.withUTF8 { writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}

/// Writes `bytes` to `path` whole: a regular file (or a new one) through a temporary file renamed
/// over it, so a reader never sees half of it; anything else (a device such as `/dev/full`, a
/// named pipe) is written in place, and every byte must reach it.
/// - Throws: `.cannotWrite` naming the path and the reason (exit 73).
public func writeFileWhole(_ bytes: Data, to path: String) throws(OfferLabError) {
    var status = stat()
    if stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG {
        let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        var failure = descriptor < 0 ? errno : 0
        if descriptor >= 0 {
            if !bytes.withUnsafeBytes({ writeAll(descriptor, $0) }) { failure = errno }
            if close(descriptor) != 0 && failure == 0 { failure = errno }
        }
        guard failure == 0 else {
            throw OfferLabError(.cannotWrite, "cannot write \(path): \(String(cString: strerror(failure)))", location: .init(path: path))
        }
        return
    }
    do {
        try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw OfferLabError(.cannotWrite, "cannot write \(path): \(error.localizedDescription)", location: .init(path: path), cause: error)
    }
}
