/// How the parsed-log cache (`ParsedLogCache`, in OfferLabEvents) names its entries: kept with
/// the job, below the cache, since the job checks its log globs against them when it is loaded.
package enum CacheEntryName {
    package static let suffix = ".parsed"
    /// An entry's name as the cache writes them: what the job checks its log globs against.
    package static let example = String(repeating: "0", count: 16) + suffix
}
