@testable import Coordinator
import Shared
import Testing

@Suite("Workers listing")
struct WorkersRenderTests {
    @Test("each worker's earned credit, and a quarantined one with its wait and misses")
    func credit() {
        let fair = Cull_V1_WorkerStatus.with {
            $0.workerID = "nas-1"; $0.host = "nas"; $0.keyName = "nas"; $0.softwareVersion = "1"; $0.inFlightJobs = 3; $0.credit = 4; $0.capacity = 8
            $0.photosDone = 120; $0.photosPerSecond = 12.04; $0.lastSeenSecondsAgo = 0.4
        }
        let hog = Cull_V1_WorkerStatus.with {
            $0.workerID = "odd"; $0.host = "x"; $0.softwareVersion = "1"; $0.capacity = 1000; $0.missedDeadlines = 3; $0.quarantineSeconds = 39.2
        }
        let lines = WorkersCommand.render([fair, hog]).split(separator: "\n").map(String.init)
        #expect(lines[0] == "  ID\tHOST\tKEY\tVERSION\tJOBS\tCREDIT\tCAPACITY\tPHOTOS\tPHOTOS/S\tSTUCK\tSEEN")
        #expect(lines[1] == "  nas-1\tnas\tnas\t1\t3\t4\t8\t120\t12.0\t0\t0.4s ago")
        #expect(lines[2] == "  odd\tx\t-\t1\t0\t0 (quarantined 40s, 3 missed)\t1000\t0\t0.0\t0\t0.0s ago")
    }
}
