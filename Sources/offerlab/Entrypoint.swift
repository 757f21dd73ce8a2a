import ArgumentParser
import OfferLab

@main
struct OfferLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offerlab",
        abstract: "Measures subscription-offering A/B tests from purchase logs and assignment tables.",
        version: NightlyRun.toolVersion,
        subcommands: [
            RunCommand.self, ReportCommand.self, StatsCommand.self, SQLCommand.self, GenerateCommand.self, DecompressCommand.self,
        ]
    )
}
