import OfferLabJob
import OfferLabSupport

extension OfferingCatalog {
    /// The offerings the job names (nil when it names none: all with assignments are analysed).
    package func analysedOfferings(job: Job) throws -> [Int]? {
        guard let names = job.offerings else { return nil }
        return try names.map { name in
            guard let index = offerings.firstIndex(where: { $0.offeringID == name }) else {
                throw OfferLabError.job(
                    job.jobPath, key: "offerings",
                    "'\(name)' is not in subscription_offerings (known: \(offerings.map(\.offeringID).joined(separator: ", ")))")
            }
            return index
        }
    }
}
