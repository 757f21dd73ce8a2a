import OfferLabIngest
import OfferLabSupport

/// A job's file of rates by key: CSV or TSV with a header row naming `keyColumn` and `rate`
/// (`rates_file`: currencies, `tax_rates_file`: countries). A bad row is a bad job naming the
/// file and its line.
enum KeyedRatesFile {
    /// - Parameters:
    ///   - jobKey: the job's key that names the file, for the error.
    ///   - keyName: what a key is, in "expected a … and a rate".
    ///   - problem: why a row's key and rate cannot stand, or nil.
    static func read(
        path: String, jobKey: String, keyColumn: String, keyName: String, problem: (String, Double) -> String?
    ) throws -> [String: Double] {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(
                .badJob, "\(jobKey): \(path) must be a .csv or .tsv file (gzipped or not)", location: .init(path: path, jobKey: jobKey))
        }
        func lineFailure(_ line: Int, _ problem: String) -> OfferLabError {
            OfferLabError(.badJob, "\(jobKey): \(path) line \(line): \(problem)", location: .init(path: path, line: line, jobKey: jobKey))
        }
        var rates: [String: Double] = [:]
        do {
            let reader = try TableFileReader(path: path, format: format)
            let columns = try reader.requireColumns([keyColumn, "rate"])
            try reader.forEachRow { row in
                guard row.problem == nil, let key = row.string(at: columns[0]), !key.isEmpty, let rate = row.double(at: columns[1]) else {
                    throw lineFailure(row.lineNumber, "expected a \(keyName) and a rate")
                }
                if let problem = problem(key, rate) { throw lineFailure(row.lineNumber, problem) }
                guard rates.updateValue(rate, forKey: key) == nil else { throw lineFailure(row.lineNumber, "\(key) appears twice") }
            }
        } catch let error as IngestError {
            throw OfferLabError(.badJob, context: "\(jobKey): ", error, jobKey: jobKey)
        }
        return rates
    }
}

/// A rates file: the columns `currency` and `rate` (a positive number).
enum RatesFile {
    static func read(path: String) throws -> [String: Double] {
        try KeyedRatesFile.read(path: path, jobKey: "rates_file", keyColumn: "currency", keyName: "currency") { currency, rate in
            CurrencyCode.problem(currency) ?? (rate > 0 ? nil : "the rate of \(currency) (\(rate)) must be positive")
        }
    }
}
