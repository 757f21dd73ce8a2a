import Foundation

/// Foundation's JSON decoder for the stores' payloads: a decoder per call is cheap next to a
/// signature check, and keeps the readers free of shared mutable state.
enum StoreJSON {
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}
