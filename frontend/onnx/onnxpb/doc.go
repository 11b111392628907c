// Package onnxpb holds the Go protobuf types generated from the official
// onnx.proto (ONNX 1.12, as packaged by Debian's libonnx-dev). Only package
// onnx uses it directly; everything else should use onnx's plain Go types.
// See README.md for how the code is regenerated.
package onnxpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go_opt=Monnx.proto=github.com/hwgen/hwgen/frontend/onnx/onnxpb onnx.proto
