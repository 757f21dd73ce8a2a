import Foundation

/// The third-party files of `shared/realdata` (Apple's App Store Server Library test resources
/// and real chain, RevenueCat's samples), read where they are, never copied into the repository.
enum RealData {
    /// `OFFERLAB_REALDATA`, else `shared/realdata` beside the package (as CI clones it), else
    /// the shared folder of the workplace (a worktree lies deeper).
    static let root: String = {
        if let path = ProcessInfo.processInfo.environment["OFFERLAB_REALDATA"], !path.isEmpty { return path }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [packageRoot.appendingPathComponent("../shared/realdata").standardizedFileURL.path, "/work/shared/realdata"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }()

    /// The folder `name` of `shared/realdata`, nil when it is not there.
    static func folder(_ name: String) -> String? {
        let path = root + "/" + name
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue ? path : nil
    }

    static func path(_ relative: String) -> String { root + "/apple/" + relative }

    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(relative))))
    }

    static func text(_ relative: String) throws -> String {
        String(decoding: try bytes(relative), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The base64 body of a PEM certificate (as `x5c` holds it); the text dump before it is skipped.
    static func pemBody(_ relative: String) throws -> String {
        let lines = try text(relative).split(separator: "\n")
        guard let begin = lines.firstIndex(of: "-----BEGIN CERTIFICATE-----"), let end = lines.firstIndex(of: "-----END CERTIFICATE-----")
        else { throw CocoaError(.fileReadCorruptFile) }
        return lines[(begin + 1)..<end].joined()
    }

    static let testCA = "app-store-server-library/certs/testCA.der"
    static let appleRootG3 = "real-apple-chain/AppleRootCA-G3.cer"
}

/// Builds JWS texts for tests: base64url segments joined by dots.
enum TestJWS {
    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URL(_ text: String) -> String { base64URL(Array(text.utf8)) }

    /// A JWS with the given header and payload JSON and a signature of 64 zero bytes.
    static func unsigned(header: String = #"{"alg":"ES256"}"#, payload: String) -> String {
        "\(base64URL(header)).\(base64URL(payload)).\(base64URL([UInt8](repeating: 0, count: 64)))"
    }

    /// An ES256 header whose `x5c` is the given base64 certificates.
    static func header(x5c: [String]) -> String {
        #"{"alg":"ES256","x5c":["# + x5c.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
    }

    /// The decoded payload of a JWS text.
    static func payload(_ jws: String) -> String {
        let segment = String(jws.split(separator: ".")[1])
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return String(decoding: Data(base64Encoded: base64)!, as: UTF8.self)
    }

    /// `jws` with its payload replaced (header and signature kept).
    static func replacingPayload(_ jws: String, with payload: String) -> String {
        let parts = jws.split(separator: ".")
        return "\(parts[0]).\(base64URL(payload)).\(parts[2])"
    }

    /// A webhook body line as a receiver stores it.
    static func line(_ signedPayload: String) -> [UInt8] { Array(#"{"signedPayload":"\#(signedPayload)"}"#.utf8) }
}
