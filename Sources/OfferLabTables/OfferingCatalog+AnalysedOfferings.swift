import OfferLabSupport

extension OfferingCatalog {
    /// The offerings `names` (the job's `offerings`; nil when it names none: all with assignments
    /// are analysed), an unknown one a bad job of the file `jobPath`.
    package func analysedOfferings(named names: [String]?, jobPath: String) throws -> [Int]? {
        guard let names else { return nil }
        return try names.map { name in
            guard let index = offerings.firstIndex(where: { $0.offeringID == name }) else {
                throw OfferLabError.job(
                    jobPath, key: "offerings",
                    "'\(name)' is not in subscription_offerings (known: \(offerings.map(\.offeringID).joined(separator: ", ")))")
            }
            return index
        }
    }
}
