@testable import Analysis
import Foundation
import Testing

/// `TurnedWindow`: where a window turned about its centre lies, and what resampling it gives.
@Suite("Turned windows")
struct TurnedWindowTests {
    /// A 32×32 plane whose value at pixel centre (i + 0.5, j + 0.5) is linear in i and j:
    /// bilinear resampling reproduces it exactly wherever it samples inside the pixel centres.
    static let side = 32
    static func linear(_ x: Double, _ y: Double) -> Double { 40 + 3 * x + 2 * y }
    static let plane: [UInt8] = (0..<(side * side)).map { UInt8(linear(Double($0 % side), Double($0 / side))) }

    @Test("a straightened frame is the largest box of the image's shape inside it, turned", arguments: [1.5, 1, 2.0 / 3])
    func straightenedFrame(aspect: Double) {
        for degrees in FeatureWindow.straightenings {
            let window = TurnedWindow.straightened(degrees: degrees, imageAspect: aspect)
            #expect(window.shape == aspect && abs(window.angle - degrees * Double.pi / 180) < 1e-12)
            #expect(window.isInside(slack: 1e-9), "\(degrees)° at aspect \(aspect)")
            var larger = window
            larger.width *= 1.01
            #expect(!larger.isInside(slack: 0), "\(degrees)° at aspect \(aspect): not the largest")
        }
        #expect(FeatureWindow.hashedCount == FeatureWindow.crops.count + 4)
        #expect(FeatureWindow.straightened(FeatureWindow.straightenedWindows[3], imageAspect: aspect).angle > 0)
    }

    /// A 200×150 gray image of waves on a gradient, the same in docs/PROTOCOL.md's terms.
    static func waves() -> GrayImage {
        let width = 200, height = 150
        return GrayImage(width: width, height: height, pixels: (0..<(width * height)).map { index in
            let x = Double(index % width), y = Double(index / width)
            return UInt8(max(0, min(255, 128 + 60 * sin(x / 13) * cos(y / 9) + 0.3 * x - 0.2 * y)))
        })
    }

    /// The values a worker in another language must reproduce: a Python implementation written
    /// from docs/PROTOCOL.md's description alone gave these four, bit for bit.
    @Test("straightened frames: known answers, in wire order (−3°, 3°, −6°, 6°)")
    func straightenedKnownAnswers() {
        let hashes = PerceptualHash.straightenedPHashes(AreaSampler(Self.waves()))
        #expect(hashes == [0x83CF_03C7_03A9_F8F1, 0x86D2_56D2_56F8_A9AC, 0x83D7_0357_0389_F8F9, 0xB482_F602_F6F8_0FAC])
    }

    @Test("an unturned window resamples the plane where its cells lie")
    func unturned() {
        // The middle half of a square image, at its own shape.
        let window = TurnedWindow(centreX: 0.5, centreY: 0.5, width: 0.5, angle: 0, imageAspect: 1, shape: 1)
        let cells = window.resampled(Self.plane[...], side: Self.side, columns: 4, rows: 4, samples: 2)
        for row in 0..<4 {
            for column in 0..<4 {
                // Cell (column, row) covers pixels 8 + 4·column ..< 12 + 4·column; its mean in
                // pixel-centre coordinates is 8 + 4·column + 2 − 0.5.
                let expected = Self.linear(8 + 4 * Double(column) + 1.5, 8 + 4 * Double(row) + 1.5)
                #expect(abs(Double(cells[row * 4 + column]) - expected) < 0.01, "cell \(column), \(row)")
            }
        }
    }

    @Test("a turned window samples along its turned axes, clockwise on screen for a positive angle")
    func turned() {
        let angle = 10.0 * Double.pi / 180
        let window = TurnedWindow(centreX: 0.5, centreY: 0.5, width: 0.5, angle: angle, imageAspect: 1, shape: 1)
        let cells = window.resampled(Self.plane[...], side: Self.side, columns: 2, rows: 2, samples: 1)
        // The top-right cell's centre, (0.75, 0.25) of the window: 4 pixels right of and 4 above
        // the image's centre before the turn; turned by the angle (y down) about (16, 16).
        let dx = 4.0, dy = -4.0
        let x = 16 + dx * cos(angle) - dy * sin(angle) - 0.5, y = 16 + dx * sin(angle) + dy * cos(angle) - 0.5
        #expect(abs(Double(cells[1]) - Self.linear(x, y)) < 0.01)
    }

    @Test("the height follows the copy's shape; corners past the frame are outside")
    func shapeAndInside() {
        // A 16:10 image, a window 90% of its width at the shape of a 4:3 copy.
        let window = TurnedWindow(centreX: 0.5, centreY: 0.5, width: 0.6, angle: 0, imageAspect: 1.6, shape: 4.0 / 3)
        #expect(abs(window.height - 0.72) < 1e-9)
        #expect(window.isInside())
        var turned = window
        turned.width = 0.9  // 1.08 of the height: past the frame
        #expect(!turned.isInside())
        turned = TurnedWindow(centreX: 0.5, centreY: 0.5, width: 1, angle: 0, imageAspect: 1.6, shape: 1.6)
        #expect(turned.isInside())
        turned.angle = 4 * Double.pi / 180  // the whole frame turned: its corners leave it
        #expect(!turned.isInside())
        turned.width = 0.9  // the largest turned box of a straightened crop at 4°, 16:10
        #expect(turned.isInside())
    }

    @Test("warping the whole frame unturned keeps a smooth plane")
    func identity() {
        let window = TurnedWindow(centreX: 0.5, centreY: 0.5, width: 1, angle: 0, imageAspect: 1, shape: 1)
        let warped = window.warped(Self.plane[...], side: Self.side)
        // Inside the edge pixels (where samples clamp), a linear plane comes back within rounding.
        for row in 1..<(Self.side - 1) {
            for column in 1..<(Self.side - 1) {
                #expect(abs(Int(warped[row * Self.side + column]) - Int(Self.plane[row * Self.side + column])) <= 1)
            }
        }
    }
}
