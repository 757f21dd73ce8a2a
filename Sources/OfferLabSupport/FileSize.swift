import Foundation

/// The size of the file at `path` in bytes, or nil when it cannot be read (sizes here only guide
/// how work is shared and room reserved, or are reported; reading the file reports the error).
package func fileSize(atPath path: String) -> Int? {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue
}
