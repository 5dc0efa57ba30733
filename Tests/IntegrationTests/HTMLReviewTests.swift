import Analysis
import Foundation
import Shared
import Testing

/// `--format html` rendered by a real browser: headless Chromium (Debian's `chromium`, which
/// scripts/setup.sh installs) takes a screenshot of the page, and the screenshot must show the
/// thumbnails: a blank or broken page fails.
@Suite("HTML review", .timeLimit(.minutes(5)))
struct HTMLReviewTests {
    @Test("cull run --format html writes one self-contained page whose screenshot shows the groups' thumbnails")
    func screenshot() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library"
        _ = try await writeLibrary(to: library, scenes: 2, width: 480, height: 360)
        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", scratch.path + "/run.sqlite", "--format", "HTML"],
                                       in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let html = run.stdout
        // Every member's thumbnail is embedded; nothing is fetched from anywhere.
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.components(separatedBy: "data:image/jpeg;base64,").count - 1 == 2 * 9, "two groups of nine photos")
        #expect(!html.contains("src=\"http") && !html.contains("src=\"file"))
        #expect(html.contains("keep: camera original, Cull Bench Optics CB-12 (synthetic 12 MP)"))
        let page = scratch.path + "/review.html", shot = scratch.path + "/review.png"
        try Data(html.utf8).write(to: URL(fileURLWithPath: page))

        let chromium = try await runCommand("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                                  "--window-size=1280,900", "--screenshot=\(shot)", "file://\(page)"],
                                            in: scratch.path, timeout: .seconds(120))
        #expect(chromium.status == 0, "chromium: \(chromium.stderr)")
        // Thumbnails, not a blank page: a good share of dark pixels (the page is white and
        // light gray, its text thin) and of strongly coloured ones (the synthetic photos are
        // colourful; text, borders and backgrounds are gray). Decoded and counted off the
        // cooperative pool (CPU work other tests' timeouts would wait behind).
        let (size, dark, colourShare) = try await onOwnThread { () throws -> ((Int, Int), Double, Double) in
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: shot)))
            let image = try PNGDecoder.decode(bytes, path: shot, maxPixels: 10_000_000)
            let pixels = image.luma.pixels
            let dark = Double(pixels.filter { $0 < 160 }.count) / Double(pixels.count)
            guard let chroma = image.chroma else { return ((image.luma.width, image.luma.height), dark, 0) }
            var coloured = 0
            for i in chroma.cb.pixels.indices where abs(Int(chroma.cb.pixels[i]) - 128) + abs(Int(chroma.cr.pixels[i]) - 128) > 40 { coloured += 1 }
            return ((image.luma.width, image.luma.height), dark, Double(coloured) / Double(chroma.cb.pixels.count))
        }
        #expect(size == (1280, 900))
        #expect(dark > 0.10, "dark share \(dark)")
        #expect(colourShare > 0.10, "coloured share \(colourShare)")
    }
}
