//go:build !networks

package onnx

// fullNetworks is set by the networks build tag (scripts/networks-float.sh):
// every network, at full size.
const fullNetworks = false
