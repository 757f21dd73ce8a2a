import Foundation

/// Test-only: stops a run at an exact stage so that a test can kill it there (SIGKILL) or let it
/// go on (SIGCONT).
///
/// With `OFFERLAB_TEST_PAUSE_AT=<stage>` in the environment, the run prints
/// `offerlab-test-pause: <stage>` on stderr when it reaches that stage and stops itself
/// (SIGSTOP). Without the variable (always, outside the tests) a stage costs a comparison with
/// nil. See docs/reliability.md.
package enum TestPause {
    package enum Stage: String {
        /// The lock is held and the first log file has been read; others may still be read.
        case readingLogs = "reading-logs"
        /// The first CSV file is in the staging folder; the others are not.
        case writingCSV = "writing-csv"
        /// Inside the database transaction: the night's old rows are deleted and the new ones
        /// inserted, not committed.
        case inTransaction = "in-transaction"
        /// Every file is staged, inside the transaction: the night folder is about to be swapped in.
        case swapping = "swapping"
        /// The night folder is swapped in, the transaction not committed yet.
        case swapped = "swapped"
    }

    private static let requested = ProcessInfo.processInfo.environment["OFFERLAB_TEST_PAUSE_AT"]

    package static func at(_ stage: Stage) {
        guard let requested, requested == stage.rawValue else { return }
        StandardStreams.writeError("offerlab-test-pause: \(stage.rawValue)\n")
        raise(SIGSTOP)
    }
}
