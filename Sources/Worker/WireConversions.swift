import Analysis
import Foundation
import Shared

extension Cull_V1_Features {
    init(_ features: PhotoFeatures, sha256: [UInt8], fileSize: Int, sha256IsHeadTail: Bool = false) {
        self.init()
        self.sha256 = Data(sha256)
        sha256HeadTail = sha256IsHeadTail
        phash = features.pHash
        dhash = features.dHash
        windowPhash = features.windowPHashes
        thumbnail = Data(features.thumbnail)
        width = UInt32(features.width)
        height = UInt32(features.height)
        self.fileSize = UInt64(fileSize)
        format = features.format.rawValue
        orientation = UInt32(features.metadata.orientation)
        sharpness = features.sharpness
        meanLuma = features.meanLuma
        decodedWidth = UInt32(features.decodedWidth)
        decodedHeight = UInt32(features.decodedHeight)
        captureTime = features.metadata.captureTime ?? ""
        cameraMake = features.metadata.cameraMake ?? ""
        cameraModel = features.metadata.cameraModel ?? ""
        software = features.metadata.software ?? ""
        modifyTime = features.metadata.modifyTime ?? ""
        exposureTime = features.metadata.exposureTime ?? 0
        fNumber = features.metadata.fNumber ?? 0
        iso = UInt32(clamping: features.metadata.iso ?? 0)
        exposureBias = features.metadata.exposureBias ?? 0
        source = features.fromPreview ? .embeddedPreview : .mainImage
        mirrorPhash = features.mirrorPHash
        chroma = Data(features.chroma)
        detail = Data(features.detail)
        if let box = features.contentBox, let hash = features.contentPHash {
            content = Cull_V1_ContentBox.with {
                $0.x = Float(box.x)
                $0.y = Float(box.y)
                $0.width = Float(box.width)
                $0.height = Float(box.height)
                $0.phash = hash
            }
        }
    }
}

extension Cull_V1_Failure {
    init(_ failure: AnalysisFailure) {
        self.init()
        kind = Cull_V1_FailureKind(storageName: failure.kind.rawValue)
        message = failure.message
    }
}

extension AnalysisOptions {
    init(_ wire: Cull_V1_AnalysisOptions) {
        self.init()
        if wire.minShortSide > 0 { minShortSide = Int(wire.minShortSide) }
        if wire.maxPixels > 0 { maxPixels = Int(clamping: wire.maxPixels) }
        if wire.maxFileBytes > 0 { maxFileBytes = Int(clamping: wire.maxFileBytes) }
        usePreviews = wire.usePreviews
    }
}
