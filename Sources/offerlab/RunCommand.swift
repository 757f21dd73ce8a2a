import ArgumentParser

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Not built yet.")

    func run() throws {
        throw ValidationError("offerlab run is not built yet")
    }
}
