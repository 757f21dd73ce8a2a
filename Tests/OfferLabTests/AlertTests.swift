import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabTestSupport
import OfferLabVocabulary
import Testing

@testable import OfferLabSupport
@testable import OfferLabWriters

/// Watching every night (docs/reliability.md, "Alerts"; docs/statistics.md, "Sequential sample
/// ratio"): alerts only on change, and the always-valid sample ratio's running minimum.
@Suite struct AlertTests {
    static func decision(_ group: String, _ status: DecisionStatus) -> DecisionRow {
        DecisionRow(offeringID: "test", group: group, controlGroup: "control", status: status, reason: "Because.")
    }

    static func previous(_ statuses: [String: DecisionStatus], flagged: Bool? = nil) -> PreviousNight {
        var night = PreviousNight(night: Night("2026-03-15"), linesRead: nil, users: [:])
        for (group, status) in statuses { night.statuses[PreviousNight.key("test", group)] = status }
        if let flagged { night.sequentialSampleRatioFlags["test"] = flagged }
        return night
    }

    static func srm(flagged: Bool?) -> SampleRatioRow {
        SampleRatioRow(offeringID: "test", seqLogBayesFactor: 9, seqPValue: flagged == true ? 0.0001 : 0.5, seqFlagged: flagged)
    }

    @Test func aFirstNightAlertsOnEveryStatusButARunningOne() {
        let alerts = ResultTables.alerts(
            decisions: [Self.decision("a", .tooEarly), Self.decision("b", .keepRunning), Self.decision("c", .unhealthy)],
            sampleRatios: [Self.srm(flagged: false)], previous: nil)
        #expect(alerts.map(\.group) == ["c"])
        #expect(alerts.first?.line == "alert: test c: unhealthy: Because." && alerts.first?.previous == "")
    }

    @Test func onlyAChangeAlertsAndRunningOnIsNone() {
        let previous = Self.previous(["a": .tooEarly, "b": .ship, "c": .keepRunning, "d": .ship, "e": .keepRunning])
        let alerts = ResultTables.alerts(
            decisions: [
                Self.decision("a", .keepRunning),  // running on: none
                Self.decision("b", .keepRunning),  // a winner that no longer wins
                Self.decision("c", .rollBack),
                Self.decision("d", .ship),  // unchanged
                Self.decision("e", .tooEarly),  // running on: none
                Self.decision("f", .keepRunning),  // new tonight, running: none
            ], sampleRatios: [], previous: previous)
        #expect(alerts.map { "\($0.group) \($0.previous) \($0.current)" } == ["b ship keep_running", "c keep_running roll_back"])
        #expect(alerts.first?.message == "test b: ship → keep_running: Because.")
    }

    /// `futile` is a status like any other: a move into it from running on is an alert, staying is none.
    @Test func aMoveToFutileAlerts() {
        let previous = Self.previous(["a": .keepRunning, "b": .futile, "c": .tooEarly])
        let alerts = ResultTables.alerts(
            decisions: [Self.decision("a", .futile), Self.decision("b", .futile), Self.decision("c", .futile)], sampleRatios: [],
            previous: previous)
        #expect(alerts.map { "\($0.group) \($0.previous) \($0.current)" } == ["a keep_running futile", "c too_early futile"])
    }

    @Test func aSampleRatioAlertsWhenItIsNewlyFlagged() {
        let newly = ResultTables.alerts(
            decisions: [], sampleRatios: [Self.srm(flagged: true)], previous: Self.previous([:], flagged: false))
        #expect(newly.map(\.kind) == ["sample_ratio"] && newly.first?.group == "" && newly.first?.previous == "false")
        #expect(
            newly.first?.line.hasPrefix("alert: test: the groups' sizes no longer match the configured split (always-valid p < 0.001)")
                == true)
        #expect(
            ResultTables.alerts(decisions: [], sampleRatios: [Self.srm(flagged: true)], previous: Self.previous([:], flagged: true)).isEmpty
        )
        #expect(ResultTables.alerts(decisions: [], sampleRatios: [Self.srm(flagged: true)], previous: nil).count == 1)
        #expect(ResultTables.alerts(decisions: [], sampleRatios: [Self.srm(flagged: false)], previous: nil).isEmpty)
    }

    /// Control joins on days 0–13, the variant only from day 3 (equal weights): the first nights
    /// are lopsided, the later ones even. Each night's p-value is the least of its own
    /// min(1, 1/BF) and every earlier night's; a re-run of a night leaves out the run it replaces.
    @Test func theAlwaysValidPValueIsTheRunningMinimumOverTheJobsNights() throws {
        let control = (0..<140).map { DecisionRunTests.Member(day: $0 % 14) }
        let variant = (0..<110).map { DecisionRunTests.Member(day: 3 + $0 % 11) }
        let night = try DecisionRunTests.night(
            control: control, variant: variant, job: ["allow_empty_night": "true", "allow_stale_logs": "true"])
        var own: [Double] = []
        var running: [Double] = []
        for asOf in ["2026-03-06", "2026-03-10", "2026-03-16", "2026-03-10"] {
            let run = try night.run(["--as-of", asOf])
            #expect(run.status == 0, "\(run.standardError)")
            let row = try #require(ProjectionRunTests.records(try night.csv("srm", night: asOf)).first { $0["offering_id"] == "test" })
            own.append(min(1, exp(-(try DecisionRunTests.number(row["seq_srm_log_bayes_factor"])))))
            running.append(try DecisionRunTests.number(row["seq_srm_p_value"]))
            #expect(row["seq_srm_flag"] == String(running.last! < 0.001))
        }
        // The first night: its own value. Then the least so far; the re-run of 03-10 sees 03-06 only.
        #expect(abs(running[0] - own[0]) < 1e-15)
        #expect(abs(running[1] - min(own[0], own[1])) < 1e-15)
        #expect(abs(running[2] - own[0...2].min()!) < 1e-15)
        #expect(abs(running[3] - min(own[0], own[3])) < 1e-15)
        #expect(own[0] < own[2], "the lopsided first night is the least")
    }

    /// Night 1 (day 3) is too early: no alert. Night 2 ships: one alert, and with
    /// `alert_exit_code: 3` the run exits 3. Re-run, night 2 still compares with night 1; night 3
    /// ships again: no alert, exit 0.
    @Test func alertsReachStdoutAndTheExitCode() throws {
        let night = try DecisionRunTests.night(
            control: DecisionRunTests.members(200, paying: 20), variant: DecisionRunTests.members(200, paying: 150),
            job: ["alert_exit_code": "3", "allow_stale_logs": "true"])
        let first = try night.run(["--as-of", "2026-03-05"])
        #expect(first.status == 0 && !first.standardOutput.contains("alert:"), "\(first.standardError)")
        for _ in 0..<2 {
            let second = try night.run(["--as-of", "2026-03-16"])
            #expect(second.status == 3, "\(second.standardError)")
            #expect(second.standardOutput.contains("\nalert: test variant: too_early → ship: Ship variant: revenue per user +650.0%"))
            let rows = ProjectionRunTests.records(try night.csv("alerts"))
            #expect(rows.map { [$0["group"], $0["kind"], $0["previous"], $0["current"]] } == [["variant", "status", "too_early", "ship"]])
        }
        let third = try night.run(["--as-of", "2026-03-17"])
        #expect(third.status == 0 && !third.standardOutput.contains("alert:"), "\(third.standardOutput)")
        #expect(try night.csv("alerts", night: "2026-03-17").count == 1, "the header alone")
        let stored = try night.resultRows(where: "1")["alerts"] ?? []
        #expect(stored.count == 1, "\(stored)")
    }

    /// A night older than the job's latest successful night (a back-fill) alerts nothing: its
    /// changes are old news, already sent when the later night ran.
    @Test func aBackFilledNightAlertsNothing() throws {
        let night = try DecisionRunTests.night(
            control: DecisionRunTests.members(200, paying: 20), variant: DecisionRunTests.members(200, paying: 150),
            job: ["alert_exit_code": "3", "allow_stale_logs": "true"])
        let latest = try night.run(["--as-of", "2026-03-16"])
        #expect(latest.status == 3 && latest.standardOutput.contains("\nalert: test variant: ship"), "\(latest.standardError)")
        // 03-14 alone would be a first night that ships (an alert); after 03-16 it is a back-fill.
        let backFill = try night.run(["--as-of", "2026-03-14"])
        #expect(backFill.status == 0 && !backFill.standardOutput.contains("alert:"), "\(backFill.standardOutput)")
        #expect(backFill.standardOutput.contains("test variant: ship:"))
        #expect(try night.csv("alerts", night: "2026-03-14").count == 1, "the header alone")
        // The latest night run again is no back-fill: it still compares with the night before it.
        let again = try night.run(["--as-of", "2026-03-16"])
        #expect(again.status == 0 && !again.standardOutput.contains("alert:"), "03-14 shipped too: \(again.standardOutput)")
    }

    /// `offerlab status` from the database alone: the latest night by default, another with
    /// --as-of; a status's first night is the start of its unbroken run of nights.
    @Test func statusReadsWhereEveryTestStands() throws {
        let night = try DecisionRunTests.night(
            control: DecisionRunTests.members(200, paying: 20), variant: DecisionRunTests.members(200, paying: 150),
            job: ["allow_stale_logs": "true"])
        for asOf in ["2026-03-05", "2026-03-16", "2026-03-17"] {
            let run = try night.run(["--as-of", asOf])
            #expect(run.status == 0, "\(run.standardError)")
        }
        let latest = try runOfferLab(["status", "--db", night.databasePath])
        #expect(latest.status == 0, "\(latest.standardError)")
        let lines = latest.standardOutput.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(lines.first?.map(String.init) == NightStatus.header)
        #expect(lines.count == 2, "one treatment; the one-group offering has none")
        let row = lines[1].map(String.init)
        #expect(row[0...3] == ["test", "variant", "ship", "arpu"] && row[4] == "+650.0%" && row[10] == "2026-03-16", "\(row)")
        #expect(row[6] == "15.0", "days running on 2026-03-17")
        let early = try runOfferLab(["status", "--db", night.databasePath, "--as-of", "2026-03-05"])
        let earlyRow = try #require(early.standardOutput.split(separator: "\n").last).split(
            separator: "\t", omittingEmptySubsequences: false
        )
        .map(String.init)
        // The night it began, then no billing periods: the groups sell the same one.
        #expect(earlyRow[2] == "too_early" && earlyRow[10] == "2026-03-05" && earlyRow.last == "", "\(early.standardOutput)")
        // Too early on 2026-03-05, a test that began on 2026-03-02: decided no sooner than its 7th day.
        let daysLeft = try #require(Int(earlyRow[7]), "\(earlyRow)")
        let decidedAround = Timestamp.formatDate(try #require(Night(parsing: "2026-03-05")).microseconds + Int64(daysLeft) * 86_400_000_000)
        #expect(daysLeft >= 4 && earlyRow[8] == decidedAround, "\(earlyRow)")
        #expect(NightStatus.table([row]).split(separator: "\n").first?.hasPrefix("offering  group    status") == true)

        // A person at a terminal reads words and dates; a program gets the stored names.
        let person = try NightStatus.rows(databasePath: night.databasePath, night: Night(parsing: "2026-03-05"), for: .person).rows
        #expect(person.first?[2] == "Too early to decide" && person.first?[3] == "revenue per user", "\(person)")
        // A floor (no renewal of the members' plan is due yet on 03-05) is the earliest day: "not before".
        let stored = try #require(ProjectionRunTests.records(try night.csv("decisions", night: "2026-03-05")).first)
        let floor = stored["days_left_floor"] == "true"
        #expect(
            person.first?[8] == StatusCells(reader: .person, currency: "").date(night: "2026-03-05", plusDays: daysLeft, floor: floor),
            "\(person)")
        #expect(person.first?[8].hasPrefix(floor ? "not before " : "about ") == true, "\(person)")
    }

    /// Money in `status` carries its currency; piped, a number is as a program parses it (ASCII
    /// minus, no thousands separators), for a person as the report prints it.
    @Test func statusMoneyHasItsCurrencyAndPipedNumbersArePlain() {
        let program = StatusCells(reader: .program, currency: "EUR")
        let person = StatusCells(reader: .person, currency: "EUR")
        #expect(program.money(-13_668.756) == "EUR -13668.76" && person.money(-13_668.756) == "EUR \u{2212}13,669")
        #expect(program.money(166_810.6) == "EUR +166810.60" && person.money(166_810.6) == "EUR +166,811")
        #expect(program.interval(-0.4231, 0.655) == "-42.3% to +65.5%" && person.interval(-0.4231, 0.655) == "\u{2212}42.3% to +65.5%")
        #expect(program.interval(nil, 0.655).isEmpty)
        #expect(program.status(.keepRunning) == "keep_running" && person.status(.keepRunning) == "Keep running")
        #expect(program.metric("arpu_d14") == "arpu_d14" && person.metric("arpu_d14") == "revenue per user within 14 days")
        #expect(
            program.date(night: "2026-12-30", plusDays: 3, floor: false) == "2027-01-02"
                && person.date(night: "2026-12-30", plusDays: 3, floor: false) == "about 2 January 2027")
        #expect(person.date(night: "2026-03-05", plusDays: 9, floor: false) == "about 14 March")
        // A floor (a renewal no rate is seen for counts none) is the earliest day, as the report says it.
        #expect(
            person.date(night: "2026-03-05", plusDays: 9, floor: true) == "not before 14 March"
                && program.date(night: "2026-03-05", plusDays: 9, floor: true) == "2026-03-14")
    }

    @Test func statusWithoutANightExits66() throws {
        let folder = try TemporaryFolder()
        let missing = try runOfferLab(["status", "--db", folder.file("results.sqlite")])
        #expect(missing.status == 66 && missing.standardOutput.isEmpty)
        #expect(
            missing.standardError == "offerlab: error: \(ResultsDatabase.missingMessage(folder.file("results.sqlite")))\n")
        // `report` says the same of the same path.
        let report = try runOfferLab(["report", "--db", folder.file("results.sqlite"), "--as-of", "2026-03-15"])
        #expect(report.status == 66 && report.standardError == missing.standardError, "\(report.standardError)")
        // A database whose only run failed holds no night either.
        let night = try DecisionRunTests.night(
            control: DecisionRunTests.members(2), variant: DecisionRunTests.members(2), job: ["allow_empty_night": "true"])
        let run = try night.run(["--as-of", "2026-03-16"])
        #expect(run.status == 0, "\(run.standardError)")
        let database = try SQLiteDatabase(path: night.databasePath)
        try database.execute("UPDATE runs SET status = 'failed'")
        #expect(try runOfferLab(["status", "--db", night.databasePath]).status == 66)
    }

    @Test(arguments: ["1", "65", "78", "114", "-1", "2.5", "x"])
    func aBadAlertExitCodeIsABadJob(code: String) throws {
        let night = try DecisionRunTests.night(
            control: DecisionRunTests.members(2), variant: DecisionRunTests.members(2), job: ["alert_exit_code": code])
        let run = try night.run()
        #expect(run.status == 78, "\(run.standardError)")
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: night.jobPath) }
        #expect(error.code == .badJob && error.location.jobKey == "alert_exit_code", "\(error)")
    }
}
