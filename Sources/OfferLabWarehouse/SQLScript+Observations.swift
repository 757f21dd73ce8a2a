/// The night part observations (contract §3.3): see `nightPartResult`.
extension ScriptBuilder {
    func observationsResult() throws -> String {
        throw notComputedYet(.observations)
    }
}
