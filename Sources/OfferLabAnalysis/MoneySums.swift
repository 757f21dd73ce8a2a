import OfferLabStatistics

extension GroupTotals {
    /// The money of group totals: one user's values, or sums rounded from `ExactMoney`.
    struct Money: Sendable {
        var revenueSum = 0.0
        var revenueSumSquares = 0.0
        var grossRevenue = 0.0
        var refundedRevenue = 0.0
        var proceedsSum = 0.0
        var proceedsSumSquares = 0.0

        /// Whether every value is 0: adding it changes no sum.
        var isZero: Bool {
            revenueSum == 0 && revenueSumSquares == 0 && grossRevenue == 0 && refundedRevenue == 0 && proceedsSum == 0
                && proceedsSumSquares == 0
        }
    }

    var money: Money {
        get {
            Money(
                revenueSum: statistics.revenueSum, revenueSumSquares: statistics.revenueSumSquares, grossRevenue: grossRevenue,
                refundedRevenue: refundedRevenue, proceedsSum: proceedsSum, proceedsSumSquares: proceedsSumSquares)
        }
        set {
            statistics.revenueSum = newValue.revenueSum
            statistics.revenueSumSquares = newValue.revenueSumSquares
            grossRevenue = newValue.grossRevenue
            refundedRevenue = newValue.refundedRevenue
            proceedsSum = newValue.proceedsSum
            proceedsSumSquares = newValue.proceedsSumSquares
        }
    }
}

/// Sums of users' money, each kept exact (`ExactSum`) and rounded once: the double nearest to
/// the true total of the users' values. So a group's total is the same to the last bit however
/// its users were split between runs and threads, and a day's total, added up from each user's
/// changes (their new value added, the old one subtracted), is the night's total on its last day.
struct ExactMoney: Sendable {
    private var revenueSum = ExactSum()
    private var revenueSumSquares = ExactSum()
    private var grossRevenue = ExactSum()
    private var refundedRevenue = ExactSum()
    private var proceedsSum = ExactSum()
    private var proceedsSumSquares = ExactSum()

    mutating func add(_ money: GroupTotals.Money) {
        revenueSum.add(money.revenueSum)
        revenueSumSquares.add(money.revenueSumSquares)
        grossRevenue.add(money.grossRevenue)
        refundedRevenue.add(money.refundedRevenue)
        proceedsSum.add(money.proceedsSum)
        proceedsSumSquares.add(money.proceedsSumSquares)
    }

    mutating func subtract(_ money: GroupTotals.Money) {
        revenueSum.subtract(money.revenueSum)
        revenueSumSquares.subtract(money.revenueSumSquares)
        grossRevenue.subtract(money.grossRevenue)
        refundedRevenue.subtract(money.refundedRevenue)
        proceedsSum.subtract(money.proceedsSum)
        proceedsSumSquares.subtract(money.proceedsSumSquares)
    }

    mutating func add(_ other: ExactMoney) {
        revenueSum.add(other.revenueSum)
        revenueSumSquares.add(other.revenueSumSquares)
        grossRevenue.add(other.grossRevenue)
        refundedRevenue.add(other.refundedRevenue)
        proceedsSum.add(other.proceedsSum)
        proceedsSumSquares.add(other.proceedsSumSquares)
    }

    var rounded: GroupTotals.Money {
        GroupTotals.Money(
            revenueSum: revenueSum.value, revenueSumSquares: revenueSumSquares.value, grossRevenue: grossRevenue.value,
            refundedRevenue: refundedRevenue.value, proceedsSum: proceedsSum.value, proceedsSumSquares: proceedsSumSquares.value)
    }
}
