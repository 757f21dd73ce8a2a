import OfferLabSupport

/// An event's user as its record holds it, in 4 bytes: the user's index in the population's user
/// table (`Population.users`), or `unassigned` for a user with no assignment row. This is the one
/// form a record's reader sees; how a batch keeps its users until they are resolved is
/// `UserResolver`'s own.
public struct UserReference: Equatable, Sendable, BitwiseCopyable {
    /// The population's index, -1 when unassigned. Until its batch's users are resolved, a code
    /// of `UserResolver`'s below -1 (`waitingCode`), so that no record claims a population user
    /// before it has one. Made in this file only; read elsewhere only through `populationIndex`
    /// (visible to the module so that other targets' loops inline that).
    @usableFromInline let code: Int32

    fileprivate init(code: Int32) { self.code = code }

    /// A user the population does not hold.
    public static let unassigned = UserReference(code: -1)

    /// The user's index in the population's user table; nil when the population does not hold it.
    @inlinable
    public var populationIndex: Int32? { code >= 0 ? code : nil }
}

/// How a batch's events get their users (`UserReference`): the one place that knows what a
/// record's user holds before its batch's users are resolved. It works one of two ways, chosen
/// when the batch is made:
///
/// - Interning the file's own users (`init()`, `init(capacity:)`): a file read before the
///   assignment table is loaded keeps its users in a table of its own (`fileUsers`), the record
///   of its `i`th user holding `waitingCode(i)`, until `resolve(_:in:)` maps them to the
///   population's, one lookup per distinct user. The parsed-log cache keeps batches in this state.
/// - Looking them up as they come (`init(lookingUpIn:)`): a file read once the table is loaded
///   looks each event's user up in the population's, a group at a time so that the probes'
///   cache misses overlap. The record of the `i`th user waiting in the group holds
///   `waitingCode(i)` until the group is looked up (when it is full, and when the file is done:
///   `finishLookingUp(_:)`).
///
/// Either way an event's user is found in two steps (`start`, then `finish`), so that the memory
/// its probe waits on is loaded while the rest of the event is built.
struct UserResolver: Sendable {
    /// Whether each event's user is looked up in `populationUsers` as the file is read.
    let looksUp: Bool
    /// Whether the records hold the population's users (`resolve` or `finishLookingUp` has run).
    private(set) var isResolved = false
    /// The file's own users, until `resolve` (none when they are looked up as they come).
    var fileUsers: ByteStringInterner
    /// The file's id of the previous event's user (see `ByteStringInterner.intern(_:recent:)`).
    private var recentFileUser = Int32(-1)
    /// The population's users, when they are looked up as the file is read (empty otherwise).
    private var populationUsers = ByteStringInterner()
    /// Users waiting to be looked up in `populationUsers`, and where their ids go: each record
    /// from `firstPendingRecord` holds `waitingCode(i)` for the `i`th of them.
    private var pendingUsers = ByteStringInterner.LookupGroup()
    private var pendingIDs: [Int32] = []
    private var firstPendingRecord = 0

    /// What `start` leaves for `finish`: the reference the record gets, unless a new user of the
    /// file's own table is still to be interned (its hash).
    struct Started {
        fileprivate var reference: UserReference
        fileprivate var hashToIntern: UInt64?
    }

    /// Interning the file's users in a table of its own.
    init() {
        looksUp = false
        fileUsers = ByteStringInterner()
    }

    /// Interning the file's users in a table of its own, with room for about `capacity` of them.
    init(capacity: Int) {
        looksUp = false
        fileUsers = ByteStringInterner(capacity: capacity)
    }

    /// Looking each event's user up in `populationUsers` (the population's) as the file is read:
    /// each new user's slot in a file's own table would wait on memory anyway, and `resolve`
    /// would look them up again.
    init(lookingUpIn populationUsers: ByteStringInterner) {
        looksUp = true
        fileUsers = ByteStringInterner()
        self.populationUsers = populationUsers
        pendingIDs = [Int32](repeating: UserReference.unassigned.code, count: ByteStringInterner.LookupGroup.capacity)
    }

    /// The first step for an event of `user`, as soon as the line's user is known: a new user of
    /// the file's own table has its slot loaded; a user to look up waits in the group (which is
    /// looked up first when full, its ids written to `records`).
    @inline(__always)
    mutating func start(_ user: UnsafeRawBufferPointer, records: inout [EventRecord]) -> Started {
        if looksUp { return Started(reference: pending(user, records: &records), hashToIntern: nil) }
        // A file's user table outgrows the core's caches: a new user's probe would wait on memory.
        let hash = fileUsers.prefetch(user, unlessRecent: recentFileUser)
        return Started(reference: UserReference(code: Self.waitingCode(recentFileUser)), hashToIntern: hash)
    }

    /// The second step, once the rest of the event is built: the reference its record holds.
    @inline(__always)
    mutating func finish(_ user: UnsafeRawBufferPointer, _ started: Started) -> UserReference {
        // nil: the user is the previous event's, or one waiting to be looked up.
        guard let hash = started.hashToIntern else { return started.reference }
        recentFileUser = fileUsers.intern(user, hash: hash)
        return UserReference(code: Self.waitingCode(recentFileUser))
    }

    /// Looks up the users still waiting once the file is read (a resolver made with
    /// `init(lookingUpIn:)`): `records` then hold the population's users. Once only.
    mutating func finishLookingUp(_ records: inout [EventRecord]) {
        precondition(looksUp && !isResolved, "only a batch that looks up its users finishes looking them up, once")
        if !pendingUsers.isEmpty { lookUpPending(records: &records) }
        populationUsers = ByteStringInterner()
        isResolved = true
    }

    /// Replaces the file's own users in `records` by the population's (`population`),
    /// `unassigned` for users it does not hold: one lookup per distinct user of the file. Once
    /// only, and not for a resolver that looks its users up as they come.
    mutating func resolve(_ records: inout [EventRecord], in population: ByteStringInterner) {
        precondition(!isResolved && !looksUp, "a batch's users are resolved once, unless it looks them up")
        // The interner's -1 for a string it does not hold is `unassigned`'s code.
        let map = population.lookupAll(of: fileUsers)
        records.withUnsafeMutableBufferPointer { records in
            for index in records.indices { records[index].user = UserReference(code: map[Self.waitingIndex(records[index].user.code)]) }
        }
        fileUsers = ByteStringInterner()
        isResolved = true
    }

    /// The index in `fileUsers` of a record's user, while the file's users are its own (neither
    /// resolved nor looked up).
    func fileUserIndex(_ user: UserReference) -> Int {
        precondition(!isResolved && !looksUp, "a record's user is one of the file's own until its batch's users are resolved")
        return Self.waitingIndex(user.code)
    }

    /// What a record holds while its user is the `index`th of the file's own users, or of the
    /// group waiting to be looked up: below -1, so neither a population index nor `unassigned`.
    @inline(__always)
    private static func waitingCode(_ index: Int32) -> Int32 { -2 - index }

    /// The index of the user that a record holding `waitingCode(index)` waits for.
    @inline(__always)
    private static func waitingIndex(_ code: Int32) -> Int { Int(-2 - code) }

    /// The reference of a record of `user` while its user waits in the group: `user` is added
    /// unless it is the previous event's (the last one added: the group is emptied only to add
    /// one).
    @inline(__always)
    private mutating func pending(_ user: UnsafeRawBufferPointer, records: inout [EventRecord]) -> UserReference {
        if !pendingUsers.lastIs(user) {
            if pendingUsers.isFull { lookUpPending(records: &records) }
            pendingUsers.add(user, hash: ByteStringInterner.hash(user))
        }
        return UserReference(code: Self.waitingCode(Int32(pendingUsers.count - 1)))
    }

    /// Looks up the waiting users, and writes their ids to the records that wait for them (the
    /// interner's -1 for a user it does not hold is `unassigned`'s code).
    private mutating func lookUpPending(records: inout [EventRecord]) {
        populationUsers.lookUp(pendingUsers, into: &pendingIDs, at: 0)
        pendingIDs.withUnsafeBufferPointer { ids in
            records.withUnsafeMutableBufferPointer { records in
                for index in firstPendingRecord..<records.count {
                    records[index].user = UserReference(code: ids[Self.waitingIndex(records[index].user.code)])
                }
            }
        }
        firstPendingRecord = records.count
        pendingUsers.removeAll()
    }
}
