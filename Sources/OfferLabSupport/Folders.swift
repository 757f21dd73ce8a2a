import Foundation

/// Folders for the outputs, made with `mkdir(2)` so that a failure says what the system said
/// ("Not a directory", "Permission denied", "No space left on device").
package enum Folders {
    /// Creates `path` and its missing parents (`mkdir -p`); an existing folder, or an empty
    /// path (the working directory), is fine.
    /// - Throws: `OfferLabError` (`.cannotWrite`): "`context`: cannot create `folder`: `reason`".
    package static func create(_ path: String, context: String) throws {
        if path.isEmpty || mkdir(path, 0o755) == 0 { return }
        let error = errno
        var isFolder: ObjCBool = false
        if error == EEXIST, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return }
        let parent = (path as NSString).deletingLastPathComponent
        guard error == ENOENT, !parent.isEmpty, parent != path else {
            throw OfferLabError(
                .cannotWrite, "\(context): cannot create \(path): \(String(cString: strerror(error)))", location: .init(path: path))
        }
        try create(parent, context: context)
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw OfferLabError(
                .cannotWrite, "\(context): cannot create \(path): \(String(cString: strerror(errno)))", location: .init(path: path))
        }
    }
}
