import Foundation
import OfferLabIngest
import OfferLabSupport

/// The values of one table row, for the columns asked for, as bytes (`nil` field = NULL).
///
/// A SQLite row's values are copied in; a table file's record is borrowed as it is (for the
/// callback only) and read with `TableRow`'s non-generic accessors, as its generic `withBytes`
/// is not specialized across modules: the assignment table has millions of rows.
package struct TableRowValues {
    /// From SQLite: the values' bytes, back to back.
    package var bytes: [UInt8] = []
    package var fields: [Range<Int>?] = []
    /// From a table file: the reader's record, and the index in it of each column asked for.
    package var fileRow: TableRow?
    package var fileColumns: [Int] = []
    /// Where the row is, for messages: a line number (files) or a row number (SQLite).
    package var position = 0
    package var positionKind = "line"

    /// The table file, or the SQLite file, the row comes from.
    package var sourcePath = ""

    /// `line 12` or `row 12`.
    package var location: String { "\(positionKind) \(position)" }
    /// Where the row is, for an error: the file and, in a table file, the line.
    package var errorLocation: OfferLabError.Location { .init(path: sourcePath, line: fileRow == nil ? nil : position) }
    /// SQLite stores booleans as integers: any non-zero integer is true.
    package var integersAreBooleans = false

    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
    }

    package mutating func append(_ value: UnsafeRawBufferPointer?) {
        guard let value else { return fields.append(nil) }
        let start = bytes.count
        bytes.append(contentsOf: value)
        fields.append(start..<bytes.count)
    }

    package func withBytes<T>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        if let fileRow {
            let index = fileColumns[column]
            return fileRow.isNull(index) ? nil : try body(fileRow.bytes(at: index))
        }
        guard let range = fields[column] else { return nil }
        return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    package func text(_ column: Int) -> String? {
        withBytes(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// A decimal integer (`-?digits`).
    package func integer(_ column: Int) -> Int64? {
        if let fileRow { return fileRow.int64(at: fileColumns[column]) }
        return withBytes(column) { TableValue.int64($0) } ?? nil
    }

    /// A finite decimal number.
    package func real(_ column: Int) -> Double? {
        withBytes(column) { TableValue.double($0) } ?? nil
    }

    /// `1`/`0`, `true`/`false` in any case; from SQLite, any non-zero integer is true.
    package func bool(_ column: Int) -> Bool? {
        withBytes(column) { bytes in
            TableValue.bool(bytes) ?? (integersAreBooleans ? TableValue.int64(bytes).map { $0 != 0 } : nil)
        } ?? nil
    }

    /// A timestamp of the log grammar; `YYYY-MM-DD HH:MM:SS` is UTC.
    package func timestamp(_ column: Int) -> Int64? {
        if let fileRow { return fileRow.timestamp(at: fileColumns[column]) }
        return withBytes(column) { Timestamp.parse($0) } ?? nil
    }
}

/// Where the offering tables come from: a folder of CSV/TSV files, or a SQLite file.
package struct TableSource {
    package let path: String
    package let isSQLite: Bool
    /// The library for gzipped table files.
    package let inflater: Inflater

    package init(path: String, inflater: Inflater = .fastestAvailable) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw OfferLabError(.missingInput, "tables: \(path) does not exist", location: .init(path: path, jobKey: "tables"))
        }
        self.path = path
        self.inflater = inflater
        isSQLite = !isFolder.boolValue
        if isSQLite && !(path.hasSuffix(".sqlite") || path.hasSuffix(".db")) {
            throw OfferLabError(
                .badJob, "tables: \(path) must be a folder of table files or a .sqlite/.db file",
                location: .init(path: path, jobKey: "tables"))
        }
    }

    /// Whether the source has `table` (the report-only tables may be left out).
    package func hasTable(_ table: String) throws -> Bool {
        if isSQLite {
            do {
                return try SQLiteDatabase(path: path, readOnly: true).tableNames().contains(table)
            } catch let error as SQLiteError {
                throw OfferLabError(.badTables, "tables: \(error)", location: .init(path: path), cause: error)
            }
        }
        return [".csv", ".csv.gz", ".tsv", ".tsv.gz"].contains {
            FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(table + $0))
        }
    }

    /// About how many rows, and bytes of text, the file holding `table` has, from its size (nil
    /// for a SQLite source or when unknown): enough to size tables for them in advance. A row
    /// takes about 40 bytes of text, about 11 gzipped (`user_offering_assignments`).
    package func estimatedSize(of table: String) -> (rows: Int, bytes: Int)? {
        guard !isSQLite, let path = try? file(for: table).path,
            let size = fileSize(atPath: path),
            let gzip = try? isGzipFile(path)
        else { return nil }
        let rows = size / (gzip ? 11 : 40)
        return (rows, rows * 40)
    }

    /// Calls `body` for every row of `table`, with `columns` in the order given. A table file that
    /// takes long to read says how far it has got through `progress`, as `name`.
    /// - Throws: a `.badTables` error naming the file and the column when a column is missing.
    package func forEachRow(
        of table: String, columns: [String], progress: (reporter: ProgressReporter, name: String)? = nil,
        _ body: (TableRowValues) throws -> Void
    ) throws {
        if isSQLite {
            try forEachSQLiteRow(of: table, columns: columns, body)
        } else {
            try forEachFileRow(of: table, columns: columns, progress: progress, body)
        }
    }

    private func forEachSQLiteRow(of table: String, columns: [String], _ body: (TableRowValues) throws -> Void) throws {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, readOnly: true)
        } catch {
            throw OfferLabError(.badTables, "tables: cannot open \(path) as SQLite: \(error)", location: .init(path: path), cause: error)
        }
        do {
            guard try database.tableNames().contains(table) else {
                throw OfferLabError(.badTables, "tables: \(path) has no table \(table)", location: .init(path: path))
            }
            let present = Set(try database.prepare("SELECT * FROM \(quoteIdentifier(table)) LIMIT 0").columnNames)
            if let missing = columns.first(where: { !present.contains($0) }) {
                throw OfferLabError(.badTables, "tables: \(path): table \(table) has no column \(missing)", location: .init(path: path))
            }
            let sql = "SELECT \(columns.map(quoteIdentifier).joined(separator: ", ")) FROM \(quoteIdentifier(table))"
            var values = TableRowValues()
            values.integersAreBooleans = true
            values.positionKind = "row"
            values.sourcePath = path
            try database.prepare(sql).forEachRow { row in
                values.reset()
                values.position += 1
                for column in 0..<columns.count {
                    switch row.value(at: column) {
                    case .null: values.append(nil)
                    case .integer(let integer): appendText(String(integer), to: &values)
                    case .real(let real): appendText(String(real), to: &values)
                    case .text(let text): appendText(text, to: &values)
                    }
                }
                try body(values)
            }
        } catch let error as SQLiteError {
            throw OfferLabError(.badTables, "tables: \(error)", location: .init(path: path), cause: error)
        }
    }

    private func forEachFileRow(
        of table: String, columns: [String], progress: (reporter: ProgressReporter, name: String)?,
        _ body: (TableRowValues) throws -> Void
    ) throws {
        let (file, format) = try file(for: table)
        let onBytesRead = progress.map { $0.reporter.readingFile(file, named: $0.name) }
        var rows = 0
        do {
            let reader = try TableFileReader(path: file, format: format, inflater: inflater)
            let indices = try reader.requireColumns(columns)
            var values = TableRowValues()
            values.fileColumns = indices
            values.sourcePath = file
            // Pulled row by row: no closure between the reader and `body`.
            while let row = try reader.nextRow() {
                rows += 1
                // Every 4096 rows: a few hundred kilobytes of text.
                if rows & 4095 == 0, let onBytesRead { onBytesRead(reader.compressedBytesRead) }
                if let problem = row.problem {
                    let detail =
                        switch problem {
                        case .fieldCount: "it has \(row.count) fields where the header has \(reader.header.count)"
                        case .tooLong: "it is longer than \(reader.maxRecordLength) bytes"
                        case .unterminatedQuote: "a quote is never closed"
                        }
                    throw OfferLabError(
                        .badTables, "tables: \(file) line \(row.lineNumber): \(detail)", location: .init(path: file, line: row.lineNumber))
                }
                values.fileRow = row
                values.position = row.lineNumber
                try body(values)
            }
        } catch let error as IngestError {
            throw OfferLabError(.badTables, context: "tables: ", error)
        }
    }

    private func appendText(_ text: String, to values: inout TableRowValues) {
        var text = text
        text.withUTF8 { values.append(UnsafeRawBufferPointer($0)) }
    }

    private func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The file holding `table` in the folder: `<table>.csv`, `.csv.gz`, `.tsv` or `.tsv.gz`.
    package func file(for table: String) throws -> (path: String, format: TableFormat) {
        let candidates: [(String, TableFormat)] = [
            (".csv", .csv), (".csv.gz", .csv), (".tsv", .tsv), (".tsv.gz", .tsv),
        ]
        let found = candidates.compactMap { suffix, format -> (String, TableFormat)? in
            let file = (path as NSString).appendingPathComponent(table + suffix)
            return FileManager.default.fileExists(atPath: file) ? (file, format) : nil
        }
        guard let first = found.first else {
            throw OfferLabError(
                .badTables, "tables: \(path) has no file for table \(table) (\(table).csv, .csv.gz, .tsv or .tsv.gz)",
                location: .init(path: path))
        }
        guard found.count == 1 else {
            throw OfferLabError(
                .badTables, "tables: \(path) has several files for table \(table): \(found.map(\.0).joined(separator: ", "))",
                location: .init(path: path))
        }
        return first
    }
}

/// Whether a file starts with the gzip magic bytes (how `run` decides to inflate it).
package func isGzipFile(_ path: String) throws -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw OfferLabError(.missingInput, "\(path): cannot open it", location: .init(path: path))
    }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 2)) == Data([0x1f, 0x8b])
}
