#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// A rectangle of an image, turned by a small angle about its centre, with the shape of another
/// image's frame: where a cropped or straightened copy's whole frame lies in its original.
///
/// `FeatureWindow`s are fixed, axis-aligned and few (what workers hash), so a crop that keeps
/// 85% of one side and 90% of the other, or a photo turned 4° and cropped to hide the corners,
/// lies a few percent off every one of them; on fine texture (leaves, cups, a forest) that
/// misfit alone moves the layout past any limit that keeps different photos apart. A turned
/// window is placed freely (`PairJudge.registered`), and the part of the image under it is
/// resampled to a thumbnail of its own (`warped`), which the judge then compares with the
/// copy's whole frame as it compares any two frames.
public struct TurnedWindow: Sendable, Equatable {
    /// The centre, in fractions of the image's width and height.
    public var centreX: Double
    public var centreY: Double
    /// The width, in fractions of the image's width. The height follows from `shape`.
    public var width: Double
    /// The turn, in radians (positive: clockwise on screen, y pointing down).
    public var angle: Double
    /// The image's width over its height, and the width over the height the window must have
    /// (the copy's frame), both in pixels.
    public var imageAspect: Double
    public var shape: Double

    public init(centreX: Double, centreY: Double, width: Double, angle: Double, imageAspect: Double, shape: Double) {
        self.centreX = centreX
        self.centreY = centreY
        self.width = width
        self.angle = angle
        self.imageAspect = imageAspect
        self.shape = shape
    }

    /// The largest box of the image's own shape centred in it and turned by `degrees`: what a
    /// straighten tool keeps when it crops the turned photo to hide its corners. The box's
    /// width and height are k times the image's, with k = 1 / (cos a + max(r, 1/r) · |sin a|)
    /// for the image's aspect r: then its turned extent, k(W cos a + H sin a) across and
    /// k(W sin a + H cos a) down, fits in W × H.
    public static func straightened(degrees: Double, imageAspect: Double) -> TurnedWindow {
        let angle = degrees * Double.pi / 180
        let k = 1 / (cos(angle) + max(imageAspect, 1 / imageAspect) * abs(sin(angle)))
        return TurnedWindow(centreX: 0.5, centreY: 0.5, width: k, angle: angle, imageAspect: imageAspect, shape: imageAspect)
    }

    /// The height, in fractions of the image's height: width × imageAspect / shape, so that the
    /// window's pixels have the copy's shape.
    public var height: Double { width * imageAspect / shape }

    /// Where the window's point (u, v) (fractions of its width and height, from its top left)
    /// lies in the image, in fractions of the image's width and height.
    @inline(__always)
    func point(_ u: Double, _ v: Double, cos c: Double, sin s: Double) -> (x: Double, y: Double) {
        // In units of the image's height, where a turn keeps right angles.
        let dx = (u - 0.5) * width * imageAspect, dy = (v - 0.5) * height
        let x = centreX * imageAspect + dx * c - dy * s
        let y = centreY + dx * s + dy * c
        return (x / imageAspect, y)
    }

    /// Whether all four corners lie inside the image, give or take `slack` (a fraction of its
    /// sides): a crop never reaches past the frame it came from.
    public func isInside(slack: Double = 0.01) -> Bool {
        let c = cos(angle), s = sin(angle)
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            let corner = point(u, v, cos: c, sin: s)
            if corner.x < -slack || corner.x > 1 + slack || corner.y < -slack || corner.y > 1 + slack { return false }
        }
        return true
    }

    /// The part of `plane` (a `side` × `side` image of the whole frame, row by row) under the
    /// window, resampled to `side` × `side`: what the judge compares with the copy's frame.
    /// The window covers less than the frame, so each output pixel spans under one input pixel
    /// a side, and its 2×2 bilinear samples come close to its area average.
    public func warped(_ plane: ArraySlice<UInt8>, side: Int) -> [UInt8] {
        resampled(plane, side: side, columns: side, rows: side, samples: 2).map { UInt8(max(0, min(255, $0.rounded()))) }
    }

    /// `columns` × `rows` cells of the part of `plane` (`side` × `side`, row by row) under the
    /// window, each the mean of `samples` × `samples` bilinear samples spread over it (outside
    /// the image, its edge). For the registration's search, which needs only the judge's cells.
    public func resampled(_ plane: ArraySlice<UInt8>, side: Int, columns: Int, rows: Int, samples: Int) -> [Float] {
        precondition(side >= 2 && plane.count == side * side, "a plane of \(side)×\(side) values")
        // The window's point (u, v) is affine in u and v: in the plane's pixel units (centres at
        // i + 0.5), origin + u·across + v·down. Stepping along it leaves one multiply-add a sample.
        let c = cos(angle), s = sin(angle), n = Double(side)
        let topLeft = point(0, 0, cos: c, sin: s), topRight = point(1, 0, cos: c, sin: s), bottomLeft = point(0, 1, cos: c, sin: s)
        let originX = topLeft.x * n - 0.5, originY = topLeft.y * n - 0.5
        let acrossX = (topRight.x - topLeft.x) * n, acrossY = (topRight.y - topLeft.y) * n
        let downX = (bottomLeft.x - topLeft.x) * n, downY = (bottomLeft.y - topLeft.y) * n
        let weight = 1 / Float(samples * samples), last = Float(n - 1)
        let sampleColumns = columns * samples, sampleRows = rows * samples
        // In Float, a step of u and v at a time: the registration resamples a window ~70 times a pair.
        let stepAcrossX = Float(acrossX / Double(sampleColumns)), stepAcrossY = Float(acrossY / Double(sampleColumns))
        return [Float](unsafeUninitializedCapacity: columns * rows) { out, initialized in
            out.initialize(repeating: 0)
            plane.withUnsafeBufferPointer { pixels in
                for sampleRow in 0..<sampleRows {
                    let v = (Double(sampleRow) + 0.5) / Double(sampleRows)
                    var x = Float(originX + v * downX) + stepAcrossX / 2, y = Float(originY + v * downY) + stepAcrossY / 2
                    let outRow = (sampleRow / samples) * columns
                    for column in 0..<columns {
                        var sum: Float = 0
                        for _ in 0..<samples {
                            sum += Self.bilinear(pixels, side: side, last: last, x: x, y: y)
                            x += stepAcrossX
                            y += stepAcrossY
                        }
                        out[outRow + column] += sum * weight
                    }
                }
            }
            initialized = columns * rows
        }
    }

    /// The level of a `side` × `side` plane at (x, y), in pixel units with pixel i's centre at
    /// i, bilinear between its four nearest pixels; outside the plane, its edge (`last` is
    /// side − 1). Shared by the registration's resampling and `Parallax`.
    @inline(__always)
    static func bilinear(_ pixels: UnsafeBufferPointer<UInt8>, side: Int, last: Float, x: Float, y: Float) -> Float {
        let px = min(max(x, 0), last), py = min(max(y, 0), last)
        let x0 = min(Int(px), side - 2), y0 = min(Int(py), side - 2)
        let fx = px - Float(x0), fy = py - Float(y0)
        let top = y0 * side + x0, below = top + side
        let upper = Float(pixels[top]) + (Float(pixels[top + 1]) - Float(pixels[top])) * fx
        let lower = Float(pixels[below]) + (Float(pixels[below + 1]) - Float(pixels[below])) * fx
        return upper + (lower - upper) * fy
    }
}
