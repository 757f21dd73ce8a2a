import ArgumentParser

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Not built yet.")

    func run() throws {
        throw ValidationError("offerlab stats is not built yet")
    }
}
