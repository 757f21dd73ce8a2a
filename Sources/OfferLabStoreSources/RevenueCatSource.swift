import OfferLabIngest

/// Which of RevenueCat's user ids is the server's `user_id` (the job's
/// `revenuecat.user_id_field`, contract §1.6), for the export and the webhooks alike.
public enum RevenueCatUserIDField: String, Sendable, CaseIterable {
    /// The id the customer was first seen with (`rc_original_app_user_id`,
    /// `original_app_user_id`): stable for the customer's whole life. The default.
    case originalAppUserID = "original_app_user_id"
    /// The id the app last logged in with (`rc_last_seen_app_user_id_alias`, `app_user_id`):
    /// the server's own id when the app calls `Purchases.logIn(serverUserID)` after an
    /// anonymous start.
    case lastSeenAppUserID = "last_seen_alias"

    /// The job's value: `original_app_user_id`, or `last_seen_alias` / `app_user_id` (the
    /// export's and the webhooks' names of the same id); nil for anything else.
    public init?(jobValue: String) {
        switch jobValue {
        case "original_app_user_id": self = .originalAppUserID
        case "last_seen_alias", "app_user_id": self = .lastSeenAppUserID
        default: return nil
        }
    }
}

/// A row or line of a RevenueCat file that became no record, for the rejects report: the
/// counted reason and where it is.
public struct RevenueCatRejectedLine: Sendable, Equatable {
    public var path: String
    /// 1-based line (for an export row, the line on which it starts).
    public var line: Int
    public var reason: MalformedReason

    public init(path: String, line: Int, reason: MalformedReason) {
        self.path = path
        self.line = line
        self.reason = reason
    }
}

/// What reading one file of a RevenueCat source saw besides its records: the non-blank lines
/// (rows after the header, for the export) for `lines_read`, and the malformed ones.
public struct RevenueCatFileCounts: Sendable, Equatable {
    public var path: String
    public var linesRead = 0
    public var malformed = MalformedCounts()
    public var rejectedLines: [RevenueCatRejectedLine] = []

    public init(path: String) {
        self.path = path
    }

    mutating func reject(line: Int, _ reason: MalformedReason) {
        malformed[reason] += 1
        rejectedLines.append(RevenueCatRejectedLine(path: path, line: line, reason: reason))
    }
}
