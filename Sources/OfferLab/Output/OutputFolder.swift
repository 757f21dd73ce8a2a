import COfferLabSystem
import Foundation

/// The night's output folder, written under a temporary name and swapped into place in one
/// step, so a failed or killed run leaves the previous outputs exactly as they were.
struct OutputFolder {
    /// `<output>/<night>`.
    let finalPath: String
    /// `<output>/.<night>.partial-<pid>`: written first.
    let stagingPath: String

    init(output: String, night: String) throws {
        finalPath = (output as NSString).appendingPathComponent(night)
        stagingPath = (output as NSString).appendingPathComponent(".\(night).partial-\(getpid())")
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: stagingPath) { try FileManager.default.removeItem(atPath: stagingPath) }
            try FileManager.default.createDirectory(atPath: stagingPath, withIntermediateDirectories: false)
        } catch {
            throw OfferLabError(.output, "output: cannot create \(stagingPath): \(Self.reason(error))")
        }
    }

    /// Writes `name` into the staging folder.
    func write(_ name: String, contents: String) throws {
        let path = (stagingPath as NSString).appendingPathComponent(name)
        do {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw OfferLabError(.output, "output: cannot write \(path): \(Self.reason(error))")
        }
    }

    /// Puts the staging folder in place of the final one (exchanging them atomically when the
    /// final one exists), then removes the previous outputs.
    func commit() throws {
        if FileManager.default.fileExists(atPath: finalPath) {
            guard offerlab_exchange_paths(stagingPath, finalPath) == 0 else {
                throw OfferLabError(.output, "output: cannot replace \(finalPath): \(String(cString: strerror(errno)))")
            }
            try? FileManager.default.removeItem(atPath: stagingPath)
        } else {
            guard rename(stagingPath, finalPath) == 0 else {
                throw OfferLabError(.output, "output: cannot create \(finalPath): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Removes the staging folder (after a failure).
    func discard() {
        try? FileManager.default.removeItem(atPath: stagingPath)
    }

    private static func reason(_ error: Error) -> String {
        ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? error.localizedDescription
    }
}
