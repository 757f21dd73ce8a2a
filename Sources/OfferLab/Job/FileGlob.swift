#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shell-style globs (`*`, `?`, `[…]`) expanded with the C library's `glob(3)`.
enum FileGlob {
    /// `path` with `*`, `?`, `[` and `\` escaped, so that it matches itself only (the job
    /// file's folder, put in front of a relative glob, may hold such characters).
    static func escaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            if "*?[\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// The regular files `pattern` matches (folders are left out), unsorted.
    static func matches(_ pattern: String) throws -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        let status = glob(pattern, GLOB_MARK, nil, &result)
        if status == GLOB_NOMATCH { return [] }
        guard status == 0 else {
            throw OfferLabError(.configuration, "cannot expand the glob \(pattern) (glob error \(status))")
        }
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            guard let pointer = result.gl_pathv[index] else { continue }
            let path = String(cString: pointer)
            // GLOB_MARK appends "/" to folders.
            if !path.hasSuffix("/") { paths.append(path) }
        }
        return paths
    }
}
