import Testing

@testable import OfferLabAnalysis
@testable import OfferLabWarehouse

/// A group's sums are declared once (`GroupCount`, `GroupMoneySum`): adding and merging them,
/// and the aggregates' columns, follow from the declaration.
@Suite("Group sums: one declaration")
struct GroupSumsTests {
    @Test("every declared sum has its own slot")
    func everySumHasASlot() {
        #expect(GroupCount.allCases.count <= GroupCounts.slots)
        #expect(GroupMoneySum.allCases.count <= GroupMoney.slots)
        #expect(GroupCount.allCases.map(\.rawValue) == Array(GroupCount.allCases.indices))
        #expect(GroupMoneySum.allCases.map(\.rawValue) == Array(GroupMoneySum.allCases.indices))
        #expect(Set(GroupCount.allCases.map(\.column)).count == GroupCount.allCases.count)
        #expect(Set(GroupMoneySum.allCases.map(\.column)).count == GroupMoneySum.allCases.count)
    }

    @Test("adding counts adds each one to itself, and a change adds new − old")
    func countsAddOneByOne() {
        var first = GroupCounts()
        var second = GroupCounts()
        for count in GroupCount.allCases {
            first[count] = count.rawValue + 1
            second[count] = 100 * (count.rawValue + 1)
        }
        var sum = first
        sum.add(second)
        #expect(GroupCount.allCases.allSatisfy { sum[$0] == 101 * ($0.rawValue + 1) })
        var change = GroupCounts()
        change.add(second, subtracting: first)
        #expect(GroupCount.allCases.allSatisfy { change[$0] == 99 * ($0.rawValue + 1) })
        #expect(sum != first)
    }

    @Test("money is zero only when every amount is, and rounds back from exact sums")
    func moneyOneByOne() {
        for sum in GroupMoneySum.allCases {
            var money = GroupMoney()
            #expect(money.isZero)
            money[sum] = 0.1
            #expect(!money.isZero)
            var exact = ExactMoney()
            exact.add(money)
            exact.add(money)
            exact.add(money)
            exact.subtract(money)
            #expect(exact.rounded[sum] == 0.2)
            #expect(GroupMoneySum.allCases.filter { $0 != sum }.allSatisfy { exact.rounded[$0] == 0 })
        }
    }

    @Test("the aggregates read every count and money sum: the statistics', the summary's, or the optional part's")
    func everySumHasAnAggregatesColumn() {
        let counts = AggregateStatistics.statisticsCounts + AggregateStatistics.summaryCounts + AggregateStatistics.trialCounts
        #expect(counts.sorted { $0.rawValue < $1.rawValue } == GroupCount.allCases)
        let money =
            AggregateStatistics.statisticsMoney + AggregateStatistics.summaryMoney + AggregateStatistics.proceedsMoney
            + AggregateStatistics.chargeProceedsMoney
        #expect(money.sorted { $0.rawValue < $1.rawValue } == GroupMoneySum.allCases)
    }
}
