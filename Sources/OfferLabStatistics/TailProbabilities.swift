/// A probability and its complement, each computed directly.
///
/// `upper` is not `1 − lower`: whichever of the two is small is computed on its own, so a
/// tail of 1e-200 is 1e-200 and not 0. The other one is then 1 minus it, which loses nothing.
public struct TailProbabilities: Sendable, Equatable {
    /// P(X ≤ x) (or the regularized function's value).
    public var lower: Double
    /// P(X > x) (or one minus the regularized function's value).
    public var upper: Double

    /// A pair of tails (the caller vouches that they add up to 1).
    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    /// Both tails NaN: the result for arguments outside the domain.
    static let undefined = TailProbabilities(lower: .nan, upper: .nan)
}
