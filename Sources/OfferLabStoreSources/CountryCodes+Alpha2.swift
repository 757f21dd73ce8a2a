/// The alpha-2 codes of `CountryCodes`, for the job's tax rates (docs/analysis.md §8).
package enum CountryCode {
    /// Every ISO 3166-1 alpha-2 code, and XK.
    package static let alpha2: Set<String> = Set(CountryCodes.alpha2ByAlpha3.values)
}
