import CIsal

/// The library that inflates gzip members. Both read the same bytes the same way; ISA-L
/// (`libisal2`, optional) is about four times faster than zlib, which every machine has.
public enum Inflater: String, Sendable, CaseIterable, CustomStringConvertible {
    case zlib
    case isal

    /// Whether ISA-L can be used here: OfferLab was built with its header (`libisal-dev`) and
    /// `libisal.so.2` loads.
    public static var isalAvailable: Bool { offerlab_isal_available() != 0 }

    /// Why ISA-L cannot be used here and how to get it; nil when it can.
    public static var isalUnavailableReason: String? {
        if offerlab_isal_built_in() == 0 {
            return
                "this offerlab was built without ISA-L's header: install libisal-dev (scripts/install-deps.sh does), then rebuild offerlab (swift build -c release)"
        }
        if !isalAvailable { return "libisal.so.2 does not load: install libisal2 (scripts/install-deps.sh does)" }
        return nil
    }

    /// Which inflaters this binary can use, for `offerlab --version`.
    public static var availabilityText: String {
        isalUnavailableReason.map { "gzip: zlib only; ISA-L unavailable, \($0)" } ?? "gzip: zlib, ISA-L (isal, the default)"
    }

    /// ISA-L when available, else zlib.
    public static var fastestAvailable: Inflater { isalAvailable ? .isal : .zlib }

    /// Whether this inflater can be used on this machine.
    public var isAvailable: Bool { self == .zlib || Self.isalAvailable }

    public var description: String { rawValue }

    /// A decoder for one file's members.
    func makeDecoder() -> any GzipMemberDecoder {
        switch self {
        case .zlib: ZlibMemberDecoder()
        case .isal: IsalMemberDecoder()
        }
    }
}

/// What one call of a `GzipMemberDecoder` did.
struct InflateStep {
    enum Status {
        /// Progress (possibly none: more input is needed, or the data is cut short).
        case ok
        /// The member ended: its trailer was read and checked; the input after it is untouched.
        case memberEnded
        /// The data is not valid gzip; the text says why.
        case failed(String)
    }

    var consumed: Int
    var produced: Int
    var status: Status
}

/// Inflates gzip members; `InputFileReader` owns the file, the buffers and the boundaries
/// between members. One decoder per reader, not thread-safe.
protocol GzipMemberDecoder: AnyObject {
    /// Prepares for a member that starts at the next input byte.
    func startMember() throws(InflaterUnavailable)
    /// Inflates from `input` into `output` (neither is empty, except `input` at the end of
    /// the file).
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> InflateStep
}

/// The decoder's library could not be set up (out of memory, or ISA-L missing).
struct InflaterUnavailable: Error {
    var message: String
}
