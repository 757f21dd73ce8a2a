import OfferLabProjection
import OfferLabStatistics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test's first day (µs since the epoch); members arrive uniformly over the first 60 days.
let testStart: Int64 = 1_767_225_600_000_000
let readDays = [30, 60]
let arrivalDays = 60.0
let alpha = 0.05

/// Members of one simulated group, assigned over the arrival days.
func simulateGroup(_ group: SimulatedGroup, users: Int, products: [ProjectionProduct], generator: inout SplitMix64) -> [SimulatedMember] {
    (0..<users).map { index in
        let assignedAt = testStart + Int64(generator.unit() * arrivalDays * day)
        return group.member(assignedAt: assignedAt, chain: Int64(index), products: products, generator: &generator)
    }
}

/// What the night `asOf` sees of the members: those assigned before it, their events before it.
func observed(_ members: [SimulatedMember], name: String, asOf: Int64) -> (ProjectionGroupInput, truth: Double) {
    var input = ProjectionGroupInput(name: name)
    var truth = 0.0
    for member in members where member.assignedAt < asOf {
        input.appendMember(assignedAt: member.assignedAt, events: member.events.lazy.filter { $0.time < asOf })
        truth += member.revenue365
    }
    return (input, truth / Double(max(input.users, 1)))
}

/// One cell's tally: a group of a setting read on a day.
struct CellTally {
    var tests = 0
    var truthSum = 0.0
    var realizedSum = 0.0
    /// Tests with a projection: its interval's coverage and width, the projection's error.
    var withValue = 0
    var covered = 0
    var errorSum = 0.0
    var relativeWidths: [Double] = []
    /// Tests whose renewals are not identified: the bounded interval's coverage and width.
    var bounded = 0
    var boundedCovered = 0
    var boundedRelativeWidths: [Double] = []
}

/// The median of unsorted values, "–" for none.
func median(_ values: [Double]) -> String {
    values.isEmpty ? "–" : fixed(values.sorted()[values.count / 2], 2)
}

/// One setting and read day's comparison tally.
struct ComparisonTally {
    var tests = 0
    var withValue = 0
    var rejected = 0
    var realizedFavoursTreatment = 0
    var truthFavoursTreatment = 0
    var projectionSaysControl = 0
    var projectionSaysTreatment = 0
}

/// `value` with `digits` decimals (no Foundation here), a sign when `signed`.
func fixed(_ value: Double, _ digits: Int, signed: Bool = false) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let unit = Int(scale)
    var fraction = String(scaled % unit)
    while fraction.count < digits { fraction = "0" + fraction }
    let sign = value < 0 && scaled > 0 ? "-" : (signed ? "+" : "")
    return sign + String(scaled / unit) + (digits > 0 ? "." + fraction : "")
}

func percent(_ part: Int, _ whole: Int) -> String {
    guard whole > 0 else { return "–" }
    let share: Double = 100 * Double(part) / Double(whole)
    return fixed(share, 1) + " %"
}

func study(tests: Int, usersPerDay: Int, replicates: Int) throws {
    print(
        "| setting | day | group | tests | true ARPU₃₆₅ | realised | with value | coverage | median width / truth | bias "
            + "| bounded | bounded coverage | bounded width / truth |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    var pooledIdentified = (covered: 0, total: 0)
    var pooledBounded = (covered: 0, total: 0)
    var comparisonLines: [String] = []
    let started = ContinuousClock.now
    for (settingIndex, setting) in settings.enumerated() {
        var cells = Array(repeating: Array(repeating: CellTally(), count: setting.groups.count), count: readDays.count)
        var comparisons = Array(repeating: ComparisonTally(), count: readDays.count)
        for test in 0..<tests {
            var generator = SplitMix64(state: UInt64(settingIndex) << 32 | UInt64(test))
            let users = Int(Double(usersPerDay) * arrivalDays)
            let members = setting.groups.map { simulateGroup($0, users: users, products: setting.products, generator: &generator) }
            for (readIndex, read) in readDays.enumerated() {
                let asOf = testStart + Int64(Double(read) * day)
                let views = zip(members, setting.groups).map { observed($0, name: $1.name, asOf: asOf) }
                let result = try projectOffering(
                    groups: views.map(\.0), control: 0, products: setting.products,
                    configuration: ProjectionConfiguration(asOf: asOf, alpha: alpha, replicates: replicates), using: &generator)
                for (groupIndex, projection) in result.groups.enumerated() {
                    let truth = views[groupIndex].truth
                    cells[readIndex][groupIndex].tests += 1
                    cells[readIndex][groupIndex].truthSum += truth
                    cells[readIndex][groupIndex].realizedSum += projection.realizedARPU ?? 0
                    guard let interval = projection.interval else { continue }
                    let isCovered = interval.low <= truth && truth <= interval.high
                    let relativeWidth = (interval.high - interval.low) / truth
                    if let value = projection.projectedARPU365 {
                        cells[readIndex][groupIndex].withValue += 1
                        cells[readIndex][groupIndex].errorSum += value - truth
                        cells[readIndex][groupIndex].covered += isCovered ? 1 : 0
                        cells[readIndex][groupIndex].relativeWidths.append(relativeWidth)
                    } else {
                        cells[readIndex][groupIndex].bounded += 1
                        cells[readIndex][groupIndex].boundedCovered += isCovered ? 1 : 0
                        cells[readIndex][groupIndex].boundedRelativeWidths.append(relativeWidth)
                    }
                }
                var tally = comparisons[readIndex]
                tally.tests += 1
                let row = result.comparisons[0]
                if row.difference != nil { tally.withValue += 1 }
                if let interval = row.differenceInterval {
                    if interval.low > 0 || interval.high < 0 { tally.rejected += 1 }
                    if interval.high < 0 { tally.projectionSaysControl += 1 }
                    if interval.low > 0 { tally.projectionSaysTreatment += 1 }
                }
                if (result.groups[1].realizedARPU ?? 0) > (result.groups[0].realizedARPU ?? 0) { tally.realizedFavoursTreatment += 1 }
                if views[1].truth > views[0].truth { tally.truthFavoursTreatment += 1 }
                comparisons[readIndex] = tally
            }
        }
        for (readIndex, read) in readDays.enumerated() {
            for (groupIndex, group) in setting.groups.enumerated() {
                let cell = cells[readIndex][groupIndex]
                let meanTruth = cell.truthSum / Double(cell.tests)
                let meanError = cell.withValue == 0 ? 0 : cell.errorSum / Double(cell.withValue)
                let bias = cell.withValue == 0 ? "–" : fixed(100 * meanError / meanTruth, 1, signed: true) + " %"
                print(
                    "| \(setting.name) | \(read) | \(group.name) | \(cell.tests) | \(fixed(meanTruth, 3)) | "
                        + "\(fixed(cell.realizedSum / Double(cell.tests), 3)) | \(percent(cell.withValue, cell.tests)) | "
                        + "\(percent(cell.covered, cell.withValue)) | \(median(cell.relativeWidths)) | \(bias) | "
                        + "\(percent(cell.bounded, cell.tests)) | \(percent(cell.boundedCovered, cell.bounded)) | "
                        + "\(median(cell.boundedRelativeWidths)) |")
                guard !setting.isMisspecified else { continue }
                pooledIdentified.covered += cell.covered
                pooledIdentified.total += cell.withValue
                pooledBounded.covered += cell.boundedCovered
                pooledBounded.total += cell.bounded
            }
            let tally = comparisons[readIndex]
            if setting.isAA {
                let error = (alpha * (1 - alpha) / Double(tally.tests)).squareRoot()
                comparisonLines.append(
                    "| \(setting.name) | \(read) | A/A | \(tally.tests) | false positives \(percent(tally.rejected, tally.tests)) "
                        + "(alpha + 2 MC s.e. = \(fixed(100 * (alpha + 2 * error), 1) + " %")) | "
                        + "\(percent(tally.withValue, tally.tests)) |")
            } else {
                comparisonLines.append(
                    "| \(setting.name) | \(read) | A/B | \(tally.tests) | realised ARPU favours \(setting.groups[1].name) in "
                        + "\(percent(tally.realizedFavoursTreatment, tally.tests)), the true year in "
                        + "\(percent(tally.truthFavoursTreatment, tally.tests)); the projection's interval says \(setting.groups[0].name) "
                        + "in \(percent(tally.projectionSaysControl, tally.tests)), \(setting.groups[1].name) in "
                        + "\(percent(tally.projectionSaysTreatment, tally.tests)) | \(percent(tally.withValue, tally.tests)) |")
            }
        }
    }
    print("")
    print("| setting | day | kind | tests | comparison | with value |")
    print("|---|---|---|---|---|---|")
    for line in comparisonLines { print(line) }
    print("")
    print(
        "Pooled coverage of the tests with a projection (misspecified settings left out): \(percent(pooledIdentified.covered, pooledIdentified.total)) of "
            + "\(pooledIdentified.total) intervals; of the bounded intervals (renewals not yet observed): "
            + "\(percent(pooledBounded.covered, pooledBounded.total)) of \(pooledBounded.total).")
    print("Run time: \(started.duration(to: .now)).")
}

/// The projection alone on `members` synthetic members (two groups of the A/A weekly-and-yearly
/// setting, read on day 60), with its time; `projection: false` builds the input only (for a
/// whole-process comparison).
func speed(members: Int, replicates: Int, projection: Bool) throws {
    var generator = SplitMix64(state: 1)
    let setting = settings[2]
    let asOf = testStart + Int64(60 * day)
    let groups = setting.groups.map { group in
        observed(simulateGroup(group, users: members / 2, products: setting.products, generator: &generator), name: group.name, asOf: asOf)
            .0
    }
    let events = groups.reduce(0) { $0 + $1.events.count }
    guard projection else {
        print("built \(members) members, \(events) events")
        return
    }
    let started = ContinuousClock.now
    let result = try projectOffering(
        groups: groups, control: 0, products: setting.products, configuration: ProjectionConfiguration(asOf: asOf, replicates: replicates),
        using: &generator)
    let elapsed = started.duration(to: .now)
    print("projected \(members) members, \(events) events in \(elapsed)")
    for group in result.groups {
        print(
            "  \(group.group): projected \(group.projectedARPU365 ?? .nan), interval \(group.interval.map { "[\($0.low), \($0.high)]" } ?? "–")"
        )
    }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "study":
    let values = arguments.dropFirst().compactMap { Int($0) }
    try study(tests: values.first ?? 200, usersPerDay: values.dropFirst().first ?? 40, replicates: 1000)
case "speed":
    let numbers = arguments.dropFirst().compactMap { Int($0) }
    try speed(
        members: numbers.first ?? 1_000_000, replicates: numbers.dropFirst().first ?? 2000, projection: !arguments.contains("--input-only"))
default:
    print("usage: projection-calibration study [TESTS] [USERS_PER_DAY] | speed [MEMBERS] [REPLICATES] [--input-only]")
    exit(2)
}
