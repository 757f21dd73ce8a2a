/// The night part past (contract §3.3): see `nightPartResult`.
extension ScriptBuilder {
    func pastResult() throws -> String {
        throw notComputedYet(.past)
    }
}
