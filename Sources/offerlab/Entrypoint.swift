import ArgumentParser
import Foundation
import OfferLab
import OfferLabIngest
import OfferLabSupport

@main
struct OfferLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offerlab",
        abstract: "Measures subscription-offering A/B tests from purchase logs and assignment tables.",
        // The version the runs table records, then which inflaters this build can use.
        version: "\(NightlyRun.toolVersion)\n\(Inflater.availabilityText)",
        subcommands: [
            RunCommand.self, ReportCommand.self, StatusCommand.self, StatsCommand.self, SQLCommand.self, EventsCommand.self,
            GenerateCommand.self,
            DecompressCommand.self,
        ]
    )

    /// ArgumentParser's own errors (a bad command line) as every other error of offerlab: one
    /// `offerlab: error:` line on stderr, exit 64 (its usage and help stay behind `--help`).
    /// Help, `--version` and the commands' exit codes are as ArgumentParser has them.
    static func main() async {
        StandardStreams.ignoreBrokenPipe()
        do {
            if let unknown = unknownCommand(Array(CommandLine.arguments.dropFirst())) {
                StandardStreams.writeError("offerlab: error: \(unknown)\n")
                exit(withError: ExitCode(64))
            }
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            exit(withError: code)
        } catch {
            guard exitCode(for: error) != .success else { exit(withError: error) }
            let message = message(for: error).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: "; ")
            StandardStreams.writeError("offerlab: error: \(message)\n")
            exit(withError: ExitCode(exitCode(for: error).rawValue))
        }
    }

    /// The first word when it is neither a command nor an option: ArgumentParser would call it and
    /// the rest "unexpected arguments"; a person meant a command.
    static func unknownCommand(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let commands = configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !(commands + ["help"]).contains(first) else { return nil }
        let suggestion = NearestName.among(commands, to: first).map { ": did you mean \($0)?" } ?? ""
        return "unknown command '\(first)'\(suggestion) (commands: \(commands.joined(separator: ", ")); offerlab --help)"
    }
}
