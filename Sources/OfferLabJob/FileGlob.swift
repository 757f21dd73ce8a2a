import Foundation
import OfferLabSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Shell-style globs (`*`, `?`, `[…]`) expanded with the C library's `glob(3)`, plus `**` as a
/// whole path segment: zero or more folders, at any depth (as in bash's `globstar`).
///
/// `glob(3)` alone reads `**` as `*`, one folder deep: `logs/**/*.gz` would then miss every
/// file two folders down, and a night would be analysed on part of its logs without a word.
/// The folders `**` walks leave out hidden ones (as `*` does) and symbolic links to folders
/// (which could loop). A folder that cannot be read stops the expansion with an error, never a
/// shorter list.
package enum FileGlob {
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

    /// The regular files `pattern` matches (folders are left out), unsorted, and listed again
    /// when two of its `**` reach the same folder (`logs/**/0?/**/*.gz`).
    static func matches(_ pattern: String) throws -> [String] {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard let globstar = segments.firstIndex(of: "**") else { return try expand(pattern).files }
        let head = segments[..<globstar].joined(separator: "/")
        let rest = segments[(globstar + 1)...].joined(separator: "/")
        // `logs/**` is every file under logs.
        let tail = rest.isEmpty ? "*" : rest
        let bases = head.isEmpty ? ["."] : try expand(head).folders
        var files: [String] = []
        for base in bases {
            for folder in try [base] + subfolders(of: base) {
                files += try matches(escaped(folder) + "/" + tail)
            }
        }
        return files
    }

    /// Whether `pattern` would match `path`, a file that need not exist: `*`, `?` and `[…]` within
    /// a path segment, a leading `.` only when the pattern spells it (as `glob(3)` lists files),
    /// and `**` as zero or more segments not starting with `.` (as `matches` walks them).
    package static func wouldMatch(_ pattern: String, _ path: String) -> Bool {
        func match(_ patterns: ArraySlice<Substring>, _ names: ArraySlice<Substring>) -> Bool {
            guard let first = patterns.first else { return names.isEmpty }
            if first == "**" {
                // Zero segments, or one more (not hidden) and `**` again.
                if match(patterns.dropFirst(), names) { return true }
                guard let name = names.first, !name.hasPrefix(".") else { return false }
                return match(patterns, names.dropFirst())
            }
            guard let name = names.first, fnmatch(String(first), String(name), FNM_PERIOD) == 0 else { return false }
            return match(patterns.dropFirst(), names.dropFirst())
        }
        let patterns = pattern.split(separator: "/", omittingEmptySubsequences: true)
        let names = path.split(separator: "/", omittingEmptySubsequences: true)
        return match(patterns[...], names[...])
    }

    /// What `pattern` (without `**`) matches: files, and folders (without their final `/`).
    private static func expand(_ pattern: String) throws -> (files: [String], folders: [String]) {
        var result = glob_t()
        defer { globfree(&result) }
        // A folder that cannot be read is an error, not a silently shorter list; one that does
        // not exist only matches nothing.
        let status = glob(pattern, GLOB_MARK, { _, error in error == ENOENT || error == ENOTDIR ? 0 : 1 }, &result)
        if status == GLOB_NOMATCH { return ([], []) }
        guard status == 0 else {
            let reason = status == GLOB_ABORTED ? "a folder it reaches cannot be read" : "glob error \(status)"
            throw OfferLabError(
                .missingInput, "cannot expand the glob \(pattern): \(reason)", location: .init(path: pattern, jobKey: "logs"))
        }
        var files: [String] = []
        var folders: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            guard let pointer = result.gl_pathv[index] else { continue }
            let path = String(cString: pointer)
            // GLOB_MARK appends "/" to folders.
            if path.hasSuffix("/") { folders.append(String(path.dropLast())) } else { files.append(path) }
        }
        return (files, folders)
    }

    /// Every folder under `folder`, at any depth, but hidden ones and symbolic links to folders.
    private static func subfolders(of folder: String) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw OfferLabError(
                .missingInput, "cannot list the folder \(folder) for a ** glob: \(error.localizedDescription)",
                location: .init(path: folder, jobKey: "logs"), cause: error)
        }
        var found: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = folder + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { continue }
            found.append(path)
            found += try subfolders(of: path)
        }
        return found
    }
}
