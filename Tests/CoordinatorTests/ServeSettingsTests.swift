@testable import Coordinator
import Shared
import Testing

@Suite("cull serve's settings")
struct ServeSettingsTests {
    @Test("every flag of cull serve has its environment variable and configuration key, and no setting names a flag it lacks")
    func everyFlagIsASetting() {
        let flags = LayeredArguments.longOptions(inHelp: ServeCommand.helpMessage(columns: 1_000))
        #expect(flags.subtracting(["--config", "--check-config", "--help", "--version"]) == Set(ServeCommand.settings.map(\.flag)))
        #expect(Set(ServeCommand.settings.map(\.variable)).count == ServeCommand.settings.count, "no variable twice")
    }

    @Test("a job size past what one RESULT message holds is refused, saying what to use")
    func jobSizeBounded() throws {
        #expect(throws: Never.self) { try CoordinatorOptions.parse(["--job-size", "1000"]).validate() }
        do {
            try CoordinatorOptions.parse(["--job-size", "1001"]).validate()
            Issue.record("--job-size 1001 was accepted")
        } catch {
            #expect("\(error)".contains("use 1000 or fewer"), "\(error)")
        }
    }
}
