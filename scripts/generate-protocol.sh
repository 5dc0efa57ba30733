#!/usr/bin/env bash
# Regenerates Sources/Shared/Protocol/Generated/cull.pb.swift from Proto/cull.proto.
# Not part of the normal build or CI: the generated file is committed.
# Needs protoc (Debian: protobuf-compiler) and protoc-gen-swift built from swift-protobuf at the
# version Package.swift names, e.g.:
#   git clone https://github.com/apple/swift-protobuf /tmp/swift-protobuf
#   git -C /tmp/swift-protobuf checkout 1.39.0
#   swift build -c release --package-path /tmp/swift-protobuf --product protoc-gen-swift
#   PROTOC_GEN_SWIFT=/tmp/swift-protobuf/.build/release/protoc-gen-swift scripts/generate-protocol.sh
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}
[ -x "$plugin" ] || { echo "set PROTOC_GEN_SWIFT to a protoc-gen-swift binary (see this script's header)" >&2; exit 1; }
out=Sources/Shared/Protocol/Generated
mkdir -p "$out"
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Public \
  --swift_out="$out" -I Proto Proto/cull.proto
echo "wrote $out/cull.pb.swift"
