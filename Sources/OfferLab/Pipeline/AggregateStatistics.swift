import Foundation
import OfferLabIngest
import OfferLabStatistics

/// `offerlab stats`: comparisons and SRM from per-group sufficient statistics computed
/// elsewhere, by the same code `run` uses.
public enum AggregateStatistics {
    static let columns = ["offering_id", "group", "is_control", "weight", "users", "converters", "revenue_sum", "revenue_sum_squares"]

    /// Reads `input` (CSV or TSV, see the README), writes `comparisons.csv` and `srm.csv` into
    /// `output`, the sequential columns at N* = `sequentialTuning`. Returns the offering ids.
    /// - Throws: `OfferLabError` naming the file, the line and the problem.
    @discardableResult
    public static func run(
        input: String, output: String, alpha: Double, sequentialTuning: Double = SequentialInference.defaultTuning
    ) throws -> [String] {
        guard alpha > 0 && alpha < 1 else { throw OfferLabError(.configuration, "--alpha \(alpha) must be greater than 0 and less than 1") }
        guard sequentialTuning > 0, sequentialTuning.isFinite else {
            throw OfferLabError(.configuration, "--sequential-tuning \(sequentialTuning) must be a positive number of users")
        }
        let offerings = try read(input)
        guard !offerings.isEmpty else { throw OfferLabError(.data, "\(input): no rows after the header, so no offering to compute") }
        let analyses = try offerings.map { offering in
            do {
                return (offeringID: offering.id, statistics: try analyzeOffering(offering.groups, alpha: alpha, sequentialTuning: sequentialTuning))
            } catch {
                throw OfferLabError(.data, "\(input): offering \(offering.id): \(error)")
            }
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw OfferLabError(.output, "cannot create \(output): \(error.localizedDescription)")
        }
        for table in [ResultTables.comparisonsTable(analyses), ResultTables.srmTable(analyses)] {
            let path = (output as NSString).appendingPathComponent("\(table.name).csv")
            let temporary = path + ".partial-\(getpid())"
            do {
                try Data(CSVWriter.csv(table).utf8).write(to: URL(fileURLWithPath: temporary))
                guard rename(temporary, path) == 0 else { throw OfferLabError(.output, "cannot write \(path): \(String(cString: strerror(errno)))") }
            } catch let error as OfferLabError {
                throw error
            } catch {
                throw OfferLabError(.output, "cannot write \(path): \(error.localizedDescription)")
            }
        }
        return offerings.map(\.id)
    }

    /// The offerings of an aggregates file, in byte order of `offering_id`, groups in file order.
    static func read(_ path: String) throws -> [(id: String, groups: [AnalysisGroup])] {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(.configuration, "--input \(path): expected a .csv or .tsv file (gzipped or not)")
        }
        var offerings: [String: [AnalysisGroup]] = [:]
        var controlLine: [String: Int] = [:]
        do {
            let reader = try TableFileReader(path: path, format: format)
            let index = try reader.requireColumns(columns)
            try reader.forEachRow { row in
                func fail(_ problem: String) -> OfferLabError {
                    OfferLabError(.data, "\(path) line \(row.lineNumber): \(problem)")
                }
                guard row.problem == nil else { throw fail("it has \(row.count) fields where the header has \(reader.header.count)") }
                func text(_ column: Int) throws -> String {
                    guard let value = row.string(at: index[column]), !value.isEmpty else { throw fail("\(columns[column]) is empty") }
                    return value
                }
                func count(_ column: Int) throws -> Int {
                    guard let value = row.int64(at: index[column]), value >= 0 else {
                        throw fail("\(columns[column]) '\(row.string(at: index[column]) ?? "")' is not a whole number ≥ 0")
                    }
                    return Int(value)
                }
                func number(_ column: Int) throws -> Double {
                    guard let value = row.double(at: index[column]) else {
                        throw fail("\(columns[column]) '\(row.string(at: index[column]) ?? "")' is not a number")
                    }
                    return value
                }
                let offering = try text(0)
                let group = try text(1)
                guard let isControl = row.bool(at: index[2]) else { throw fail("is_control must be true or false") }
                let weight = try number(3)
                guard weight >= 0 else { throw fail("weight \(weight) is negative") }
                let users = try count(4)
                let converters = try count(5)
                guard converters <= users else { throw fail("converters \(converters) exceed users \(users)") }
                let sum = try number(6)
                let squares = try number(7)
                // Σx² ≥ (Σx)²/n for any real values: anything clearly below is not a sum of squares.
                guard squares >= 0, users > 0 || (sum == 0 && squares == 0),
                    users == 0 || squares * Double(users) >= sum * sum * (1 - 1e-9)
                else { throw fail("revenue_sum \(sum) and revenue_sum_squares \(squares) cannot come from \(users) users") }
                if offerings[offering]?.contains(where: { $0.name == group }) == true {
                    throw fail("group \(group) of \(offering) appears twice")
                }
                if isControl {
                    if let first = controlLine[offering] { throw fail("\(offering) has a second control group (the first is on line \(first))") }
                    controlLine[offering] = row.lineNumber
                }
                offerings[offering, default: []].append(
                    AnalysisGroup(
                        name: group, isControl: isControl, weight: weight,
                        statistics: GroupSufficientStatistics(users: users, converters: converters, revenueSum: sum, revenueSumSquares: squares)))
            }
        } catch let error as IngestError {
            throw OfferLabError(.data, "\(error)")
        }
        if let missing = offerings.keys.sorted().first(where: { controlLine[$0] == nil }) {
            throw OfferLabError(.data, "\(path): offering \(missing) has no row with is_control = true")
        }
        return offerings.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, offerings[$0] ?? []) }
    }
}
