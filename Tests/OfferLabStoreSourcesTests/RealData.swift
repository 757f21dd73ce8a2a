import Foundation

/// The third-party files of `shared/realdata` (never copied into the repository): beside the
/// repository's clone in CI (`<package root>/../shared/realdata`), at `$OFFERLAB_REALDATA`, or in
/// the shared folder of a worktree's machine (`/work/shared/realdata`).
enum RealData {
    static func folder(_ name: String) -> String? {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var candidates = [packageRoot.appendingPathComponent("../shared/realdata").standardized.path, "/work/shared/realdata"]
        if let override = ProcessInfo.processInfo.environment["OFFERLAB_REALDATA"] { candidates.insert(override, at: 0) }
        return candidates.map { ($0 as NSString).appendingPathComponent(name) }.first {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && isFolder.boolValue
        }
    }
}
