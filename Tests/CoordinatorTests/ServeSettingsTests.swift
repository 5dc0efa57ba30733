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
}
