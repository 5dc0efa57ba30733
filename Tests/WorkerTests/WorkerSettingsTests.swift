import Shared
import Testing
@testable import Worker

@Suite("cull-worker's settings")
struct WorkerSettingsTests {
    @Test("every flag of cull-worker has its environment variable and configuration key, and no setting names a flag it lacks")
    func everyFlagIsASetting() {
        let flags = LayeredArguments.longOptions(inHelp: WorkerCommand.helpMessage(columns: 1_000))
        #expect(flags.subtracting(["--config", "--check-config", "--help", "--version"]) == Set(WorkerCommand.settings.map(\.flag)))
        #expect(Set(WorkerCommand.settings.map(\.variable)).count == WorkerCommand.settings.count, "no variable twice")
    }
}
