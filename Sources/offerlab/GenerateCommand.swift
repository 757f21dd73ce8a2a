import ArgumentParser

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "Not built yet.")

    func run() throws {
        throw ValidationError("offerlab generate is not built yet")
    }
}
