import Foundation
@testable import Shared
import Testing

@Suite("The processor the build needs")
struct CPUBaselineTests {
    /// A 2008 Atom's flags (no SSE4, no POPCNT), cut short.
    static let oldAtom = """
        processor\t: 0
        model name\t: Intel(R) Atom(TM) CPU D525   @ 1.80GHz
        flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr sse sse2 ht pni dtes64 monitor ssse3 cx16 xtpr lahf_lm

        processor\t: 1
        flags\t\t: fpu sse sse2 ssse3 cx16 lahf_lm
        """

    /// A current processor's, cut short.
    static let recent = """
        processor\t: 0
        flags\t\t: fpu sse sse2 ssse3 fma cx16 sse4_1 sse4_2 popcnt avx avx2 lahf_lm bmi2
        """

    @Test("features missing from the flags line are named, in the order asked")
    func missingFeatures() {
        #expect(CPUBaseline.missing(CPUBaseline.x86_64_v2, cpuinfo: Self.oldAtom) == ["popcnt", "sse4_1", "sse4_2"])
        #expect(CPUBaseline.missing(CPUBaseline.x86_64_v2, cpuinfo: Self.recent).isEmpty)
        // A flag is a whole word: "sse4_2" does not stand in for "sse4".
        #expect(CPUBaseline.missing(["sse4"], cpuinfo: Self.recent) == ["sse4"])
    }

    @Test("without a flags line nothing is called missing")
    func noFlagsLine() {
        #expect(CPUBaseline.missing(CPUBaseline.x86_64_v2, cpuinfo: "").isEmpty)
        #expect(CPUBaseline.missing(CPUBaseline.x86_64_v2, cpuinfo: "processor\t: 0\nfeatures\t: fp asimd\n").isEmpty)
    }

    @Test("the message names the program, what is missing and the portable build")
    func message() throws {
        guard !CPUBaseline.required.isEmpty else {
            // A portable build needs nothing: no processor is refused.
            #expect(CPUBaseline.problem(program: "cull", cpuinfo: Self.oldAtom) == nil)
            return
        }
        let problem = try #require(CPUBaseline.problem(program: "cull-worker", cpuinfo: Self.oldAtom))
        #expect(problem.hasPrefix("cull-worker: this build needs an x86-64-v2 processor"))
        #expect(problem.contains("lacks popcnt, sse4_1, sse4_2."))
        #expect(problem.contains("CULL_PORTABLE_BUILD=1"))
        #expect(CPUBaseline.problem(program: "cull", cpuinfo: Self.recent) == nil)
    }

    @Test("this machine runs this build, told from the first processor's entry")
    func thisMachine() throws {
        let start = try #require(CPUBaseline.firstProcessorsInfo())
        #expect(start.contains("\nflags"))
        #expect(CPUBaseline.problem(program: "cull", cpuinfo: start) == nil)
    }
}
