import OfferLabJob

/// Where a job's nights are written and whose they are: what the writers and the database's
/// reads of earlier nights (`ResultsDatabase.previousNight(of:)`,
/// `ResultsDatabase.otherJob(sharingOutputOf:)`) take of a job. Made from the job in one place
/// (`init(_:)`).
package struct OutputSettings: Sendable {
    /// The job file's identity (`Job.identity`): the `runs` table's `job`.
    package var jobIdentity: String
    /// The folder the nights' folders are written into, as the job names it.
    package var outputPath: String
    package var databasePath: String
    package var night: Night

    package init(_ job: Job) {
        jobIdentity = job.identity
        outputPath = job.outputs.outputPath
        databasePath = job.outputs.databasePath
        night = job.run.night
    }
}
