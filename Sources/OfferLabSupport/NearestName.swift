/// The known name a person most likely meant by a mistyped one: a job key, a command.
public enum NearestName {
    /// The name of `names` nearest to `typed` by edit distance (insertions, deletions,
    /// substitutions, letters compared without case), when it is close enough to be the one meant:
    /// at most a third of its length away, and at least one (`as_off`, `asof`, `rn`; `output_folder`
    /// is no typo of `output`). Nil when `typed` is one of them.
    public static func among(_ names: [String], to typed: String) -> String? {
        let letters = Array(typed.lowercased())
        let best = names.map { (name: $0, distance: distance(letters, Array($0.lowercased()))) }.min { $0.distance < $1.distance }
        guard let best, best.name != typed, best.distance <= max(1, best.name.count / 3) else { return nil }
        return best.name
    }

    /// Levenshtein distance, one row at a time: O(a·b) time, O(b) memory.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
