import OfferLabIngest
import OfferLabSupport

/// A rates file: CSV or TSV with the columns `currency` and `rate` (a header row).
enum RatesFile {
    static func read(path: String) throws -> [String: Double] {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(
                .badJob, "rates_file: \(path) must be a .csv or .tsv file (gzipped or not)",
                location: .init(path: path, jobKey: "rates_file"))
        }
        func lineFailure(_ line: Int, _ problem: String) -> OfferLabError {
            OfferLabError(
                .badJob, "rates_file: \(path) line \(line): \(problem)", location: .init(path: path, line: line, jobKey: "rates_file"))
        }
        var rates: [String: Double] = [:]
        do {
            let reader = try TableFileReader(path: path, format: format)
            let columns = try reader.requireColumns(["currency", "rate"])
            try reader.forEachRow { row in
                guard row.problem == nil, let currency = row.string(at: columns[0]), !currency.isEmpty,
                    let rate = row.double(at: columns[1]), rate > 0
                else {
                    throw lineFailure(row.lineNumber, "expected a currency and a positive rate")
                }
                if let problem = CurrencyCode.problem(currency) {
                    throw lineFailure(row.lineNumber, problem)
                }
                guard rates.updateValue(rate, forKey: currency) == nil else {
                    throw lineFailure(row.lineNumber, "\(currency) appears twice")
                }
            }
        } catch let error as IngestError {
            throw OfferLabError(.badJob, context: "rates_file: ", error, jobKey: "rates_file")
        }
        return rates
    }
}
