/// The known name a person most likely meant by a mistyped one: a job key, a command.
public enum NearestName {
    /// The name of `names` nearest to `typed` by edit distance (insertions, deletions,
    /// substitutions and swaps of two neighbouring letters, compared without case), when it is
    /// close enough to be the one meant: at most a third of its length away, and at least one
    /// (`as_off`, `asof`, `rn`; `output_folder` is no typo of `output`). Of two as near, the one
    /// as long as `typed` (`stauts` is `status` with two letters swapped, not `stats` with one
    /// added). Nil when `typed` is one of them.
    public static func among(_ names: [String], to typed: String) -> String? {
        let letters = Array(typed.lowercased())
        let best = names.map { (name: $0, distance: distance(letters, Array($0.lowercased()))) }.min {
            ($0.distance, abs($0.name.count - letters.count)) < ($1.distance, abs($1.name.count - letters.count))
        }
        guard let best, best.name != typed, best.distance <= max(1, best.name.count / 3) else { return nil }
        return best.name
    }

    /// The optimal string alignment distance (Levenshtein's, plus a swap of two neighbouring
    /// letters as one edit), three rows at a time: O(a·b) time, O(b) memory.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var twoBack = [Int]()
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                var edits = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
                if i > 0, j > 0, x == b[j - 1], a[i - 1] == y { edits = min(edits, twoBack[j - 1] + 1) }
                current.append(edits)
            }
            (twoBack, previous) = (previous, current)
        }
        return previous[b.count]
    }
}
