import ArgumentParser
import Foundation
import OfferLabIngest
import OfferLabJob

extension Inflater: ExpressibleByArgument {}

/// `--inflater`, for the commands that read gzip files.
struct InflaterOptions: ParsableArguments, JobOverriding {
    @Option(
        help: ArgumentHelp(
            "The gzip library: zlib, or isal (ISA-L: offerlab --version says whether it can). Default: $OFFERLAB_INFLATER, else the fastest available.",
            valueName: "name"))
    var inflater: Inflater?

    /// The chosen inflater: the option, else `OFFERLAB_INFLATER`, else the fastest available.
    /// - Throws: `ValidationError` for an unknown name, or ISA-L asked for where it is missing.
    func resolved() throws -> Inflater {
        var chosen = inflater ?? .fastestAvailable
        if inflater == nil, let name = ProcessInfo.processInfo.environment["OFFERLAB_INFLATER"], !name.isEmpty {
            guard let named = Inflater(rawValue: name) else {
                throw ValidationError("OFFERLAB_INFLATER=\(name): expected zlib or isal")
            }
            chosen = named
        }
        if let reason = chosen == .isal ? Inflater.isalUnavailableReason : nil {
            throw ValidationError("the isal inflater cannot be used: \(reason)")
        }
        return chosen
    }

    func override(_ overrides: inout JobOverrides) throws {
        overrides.inflater = try resolved()
    }
}
