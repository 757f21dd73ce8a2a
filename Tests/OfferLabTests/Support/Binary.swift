import Foundation
import Testing

/// The repository's root folder.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The result of running the real `offerlab` binary.
struct ProcessResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs the `offerlab` executable built next to the test bundle (in `directory`, if given).
func runOfferLab(_ arguments: [String], in directory: String? = nil) throws -> ProcessResult {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("offerlab")
    try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the offerlab product first (swift build --build-tests)")
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData, as: UTF8.self))
}

/// Parses RFC 4180 text into rows of fields (test-side, independent of the product's readers).
func parseCSV(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var inQuotes = false
    var characters = Array(text).makeIterator()
    var pending: Character?
    while let character = pending ?? characters.next() {
        pending = nil
        if inQuotes {
            if character == "\"" {
                let next = characters.next()
                if next == "\"" { field.append("\"") } else { inQuotes = false; pending = next }
            } else {
                field.append(character)
            }
        } else if character == "\"" {
            inQuotes = true
        } else if character == "," {
            row.append(field)
            field = ""
        } else if character == "\n" || character == "\r\n" || character == "\r" {
            row.append(field)
            rows.append(row)
            row = []
            field = ""
        } else {
            field.append(character)
        }
    }
    if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
}

/// Compares two CSV files cell by cell: numbers within `relativeTolerance`, text exactly.
/// Returns one line per difference.
func csvDifferences(actual: String, expected: String, relativeTolerance: Double = 1e-9) -> [String] {
    let actualRows = parseCSV(actual)
    let expectedRows = parseCSV(expected)
    var differences: [String] = []
    if actualRows.count != expectedRows.count {
        differences.append("row count \(actualRows.count) != \(expectedRows.count)")
    }
    let header = expectedRows.first ?? []
    for (index, (actualRow, expectedRow)) in zip(actualRows, expectedRows).enumerated() {
        guard actualRow.count == expectedRow.count else {
            differences.append("row \(index): \(actualRow.count) fields != \(expectedRow.count)")
            continue
        }
        for (column, (a, e)) in zip(actualRow, expectedRow).enumerated() where a != e {
            if let x = Double(a), let y = Double(e), abs(x - y) <= relativeTolerance * max(abs(x), abs(y), 1e-300) { continue }
            let name = column < header.count ? header[column] : "\(column)"
            differences.append("row \(index) \(expectedRow.first ?? "") \(name): \(a) != \(e)")
        }
    }
    return differences
}
