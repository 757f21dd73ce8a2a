/// The night parts assignments, tenure, dailyTotals (contract §3.3): see `nightPartResult`.
extension ScriptBuilder {
    func assignmentsResult() throws -> String {
        throw notComputedYet(.assignments)
    }

    func tenureResult() throws -> String {
        throw notComputedYet(.tenure)
    }

    func dailyTotalsResult() throws -> String {
        throw notComputedYet(.dailyTotals)
    }
}
