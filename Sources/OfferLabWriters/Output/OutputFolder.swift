import COfferLabSystem
import Foundation
import OfferLabJob
import OfferLabSupport

/// The night's output folder, written under a temporary name and swapped into place in one
/// step, so a failed or killed run leaves the previous outputs exactly as they were.
///
/// Files are flushed to disk (`fsync`) before the swap, and the swap itself after, so that a
/// power cut cannot leave a swapped-in folder of empty files.
package struct OutputFolder {
    /// `<output>/<night.date>`.
    package let finalPath: String
    /// `<output>/.<night.date>.partial-<pid>`: written first.
    let stagingPath: String
    private let outputPath: String

    package init(output: String, night: Night) throws {
        outputPath = output
        finalPath = (output as NSString).appendingPathComponent(night.date)
        stagingPath = (output as NSString).appendingPathComponent(Self.stagingPrefix(night) + String(getpid()))
        try Folders.create(output, context: "output")
        Self.removeAbandonedStaging(output: output, night: night)
        try? FileManager.default.removeItem(atPath: stagingPath)
        guard mkdir(stagingPath, 0o755) == 0 else { throw Self.failure("cannot create", stagingPath) }
    }

    /// Writes `name` into the staging folder and flushes it to disk.
    package func write(_ name: String, contents: String) throws {
        let path = (stagingPath as NSString).appendingPathComponent(name)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("cannot create", path) }
        defer { close(descriptor) }
        var contents = contents
        guard contents.withUTF8({ writeAll(descriptor, UnsafeRawBufferPointer($0)) }) else { throw Self.failure("cannot write", path) }
        guard fsync(descriptor) == 0 else { throw Self.failure("cannot write", path) }
    }

    /// Puts the staging folder in place of the final one, exchanging them atomically when the
    /// final one exists (the previous outputs then wait under the staging name, for `restore` or
    /// `finish`).
    /// - Returns: whether there were previous outputs.
    package func swapIn() throws -> Bool {
        try Self.sync(folder: stagingPath)
        if FileManager.default.fileExists(atPath: finalPath) {
            guard offerlab_exchange_paths(stagingPath, finalPath) == 0 else {
                throw Self.failure("cannot replace", finalPath)
            }
            try Self.sync(folder: outputPath)
            return true
        }
        guard rename(stagingPath, finalPath) == 0 else {
            throw Self.failure("cannot create", finalPath)
        }
        try Self.sync(folder: outputPath)
        return false
    }

    /// Undoes `swapIn` (the database did not commit): the previous outputs go back in place, or
    /// the new folder goes away when there were none.
    package func restore(hadPrevious: Bool) {
        if hadPrevious {
            _ = offerlab_exchange_paths(stagingPath, finalPath)
        } else {
            _ = rename(finalPath, stagingPath)
        }
        try? Self.sync(folder: outputPath)
        discard()
    }

    /// After the database committed: the previous outputs, kept under the staging name, go.
    package func finish() {
        discard()
        try? Self.sync(folder: outputPath)
    }

    /// Removes the staging folder (after a failure).
    package func discard() {
        try? FileManager.default.removeItem(atPath: stagingPath)
    }

    private static func stagingPrefix(_ night: Night) -> String { ".\(night.date).partial-" }

    /// Removes the staging folders of `night` whose run is gone (killed before it could clean
    /// up); a staging folder of a live process is left alone.
    private static func removeAbandonedStaging(output: String, night: Night) {
        let prefix = stagingPrefix(night)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: (output as NSString).appendingPathComponent(name))
        }
    }

    /// Makes the entries of `folder` (files created, renamed) durable.
    private static func sync(folder: String) throws {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open", folder) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot flush", folder) }
    }

    /// An output error for the failed system call on `path` that just set `errno`: "output: `what` `path`: reason".
    private static func failure(_ what: String, _ path: String) -> OfferLabError {
        OfferLabError(.cannotWrite, "output: \(what) \(path): \(String(cString: strerror(errno)))", location: .init(path: path))
    }
}
