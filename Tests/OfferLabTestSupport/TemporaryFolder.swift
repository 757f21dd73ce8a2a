import Foundation
import OfferLabIngest

/// A fresh temporary folder for one test, removed when the value goes away.
public final class TemporaryFolder {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("offerlab-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the folder (which need not exist).
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Writes `contents` as UTF-8 to `name`, creating its folders; returns the path.
    @discardableResult
    public func write(_ name: String, _ contents: String) throws -> String {
        try write(name, bytes: Array(contents.utf8))
    }

    /// Writes `bytes` as they are to `name`, creating its folders; returns the path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes `members` as consecutive gzip members to `name` (as log rotation and
    /// `cat a.gz b.gz` make them); returns the path.
    @discardableResult
    public func writeGzip(_ name: String, members: [String]) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let writer = try GzipWriter(path: target)
        for member in members {
            try writer.write(member)
            try writer.finishMember()
        }
        try writer.finish()
        return target
    }
}

/// The bytes of a file.
public func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}
