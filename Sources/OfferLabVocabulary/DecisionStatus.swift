/// What to do with a treatment tonight (docs/statistics.md, "The decision"): the one spelling of a
/// status from the decision to `decisions.csv`, the database, the report, the alerts and `status`.
/// Its stored name is the raw value; its words are the report's and `status`'.
public enum DecisionStatus: String, Sendable, CaseIterable {
    /// The verdict is withheld (a sample ratio mismatch, the app and the server disagreeing, …).
    case unhealthy
    /// The goal or a guardrail loses.
    case rollBack = "roll_back"
    /// Fewer whole nights than `min_runtime_days` since the first member's night.
    case tooEarly = "too_early"
    /// The goal wins and no guardrail loses.
    case ship
    /// Powered for `target_mde` and still not significant: the lift is smaller than worth finding.
    case inconclusive
    /// Nothing worth waiting for: at this enrolment neither the target lift nor a larger lift the
    /// goal shows tonight can be found by `max_runtime_days` (or at all); stop.
    case futile
    /// Not yet powered: keep the test running.
    case keepRunning = "keep_running"

    /// The status in a product lead's words: the report's headline and `status` for a person.
    public var words: String {
        switch self {
        case .ship: "Ship"
        case .rollBack: "Roll back"
        case .keepRunning: "Keep running"
        case .tooEarly: "Too early to decide"
        case .inconclusive: "Stop: any difference is too small to matter"
        case .futile: "Stop: the target lift cannot be found in time"
        case .unhealthy: "Do not act: the data looks broken"
        }
    }

    /// Whether the treatment's test has ended: nothing is left to wait for.
    public var endsTheTest: Bool {
        switch self {
        case .ship, .rollBack, .inconclusive, .futile: true
        case .unhealthy, .tooEarly, .keepRunning: false
        }
    }

    /// Whether the test simply runs on: a move between two such statuses is no alert.
    public var isRunning: Bool { self == .tooEarly || self == .keepRunning }
}
