package onnx

import (
	"fmt"
	"math"
)

// This file holds Resize and Upsample in nearest mode, the upsampling of
// detection and segmentation heads. Coordinates are computed in float32,
// as ONNX Runtime computes them, so that a position that falls exactly
// between two input elements rounds the same way.

// evalUpsample is Upsample (opsets 7 to 9), nearest: output dim =
// ⌊dim·scale⌋ with the scales as an attribute (7, 8) or input 1 (9).
func evalUpsample(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	if m := n.Str("mode", "nearest"); m != "nearest" {
		return nil, fmt.Errorf("mode %q not supported; supported: nearest", m)
	}
	scales := n.Floats("scales", nil)
	if in.given(1) {
		s, err := in.float(1)
		if err != nil {
			return nil, err
		}
		scales = s.Data
	}
	return resizeNearest(x, scales, nil, resizeMode{coord: "asymmetric", round: "legacy"})
}

// resizeMode is how Resize maps output to input positions.
type resizeMode struct {
	coord string // coordinate_transformation_mode
	round string // nearest_mode, or "legacy" (before opset 11)
}

// evalResize is Resize in nearest mode: scales (input 1 at opset 10,
// input 2 from 11) or sizes (input 3), each output position mapped to
// the input by coordinate_transformation_mode and rounded by
// nearest_mode. Linear and cubic modes, tf_crop_and_resize, antialias,
// axes and keep_aspect_ratio_policy are refused.
func evalResize(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	if m := n.Str("mode", "nearest"); m != "nearest" {
		return nil, fmt.Errorf("mode %q not supported; supported: nearest", m)
	}
	for _, a := range []string{"antialias", "axes"} {
		if _, ok := n.Attrs[a]; ok && (a != "antialias" || n.Int(a, 0) != 0) {
			return nil, fmt.Errorf("attribute %s not supported; supported: mode nearest over every axis", a)
		}
	}
	if p := n.Str("keep_aspect_ratio_policy", "stretch"); p != "stretch" {
		return nil, fmt.Errorf("keep_aspect_ratio_policy %q not supported; supported: stretch", p)
	}
	if in.opset < 11 {
		s, err := in.float(1)
		if err != nil {
			return nil, err
		}
		return resizeNearest(x, s.Data, nil, resizeMode{coord: "asymmetric", round: "legacy"})
	}
	mode := resizeMode{coord: n.Str("coordinate_transformation_mode", "half_pixel"), round: n.Str("nearest_mode", "round_prefer_floor")}
	var scales []float32
	if in.given(2) {
		s, err := in.float(2)
		if err != nil {
			return nil, err
		}
		scales = s.Data
	}
	var sizes []int64
	if in.given(3) {
		if sizes, err = in.ints(3); err != nil {
			return nil, err
		}
	}
	if len(scales) > 0 && len(sizes) > 0 || len(scales) == 0 && len(sizes) == 0 {
		return nil, fmt.Errorf("want exactly one of scales and sizes")
	}
	return resizeNearest(x, scales, sizes, mode)
}

// resizeNearest is the nearest resize of x by scales or to sizes.
func resizeNearest(x *Array, scales []float32, sizes []int64, mode resizeMode) (*Array, error) {
	r := len(x.Shape)
	if len(scales) != r && len(sizes) != r {
		return nil, fmt.Errorf("scales %v or sizes %v: want one per axis of the %d-D input", scales, sizes, r)
	}
	shape, src := make([]int, r), make([][]int, r)
	for d, in := range x.Shape {
		var scale float32
		if sizes != nil {
			if sizes[d] < 0 || sizes[d] > MaxElements {
				return nil, fmt.Errorf("sizes %v: want non-negative sizes", sizes)
			}
			shape[d] = int(sizes[d])
			scale = float32(shape[d]) / float32(in)
		} else {
			scale = scales[d]
			if !(scale > 0) || float64(in)*float64(scale) > MaxElements {
				return nil, fmt.Errorf("scales %v: want positive scales", scales)
			}
			shape[d] = int(math.Floor(float64(in) * float64(scale)))
		}
		src[d] = make([]int, shape[d])
		for o := range src[d] {
			i, err := nearestSource(o, in, shape[d], scale, mode)
			if err != nil {
				return nil, err
			}
			src[d][o] = i
		}
	}
	return remap(x, shape, src, 0), nil
}

// NearestSource is the input index that output position o of a nearest
// Resize reads along an axis of in elements resized to out elements by
// scale, under coordinate_transformation_mode coord and nearest_mode
// round ("legacy": Upsample's and Resize-10's floor for scales ≥ 1), as
// the float executor (and ONNX Runtime) computes it: the lowering takes
// a Resize onto the NPU only where it reads what the NPU copies.
func NearestSource(o, in, out int, scale float32, coord, round string) (int, error) {
	return nearestSource(o, in, out, scale, resizeMode{coord: coord, round: round})
}

// nearestSource is the input index output position o reads along an axis
// of in elements resized to out by scale.
func nearestSource(o, in, out int, scale float32, mode resizeMode) (int, error) {
	xo, xr := float32(0), float32(o)
	switch mode.coord {
	case "half_pixel":
		xo = (xr+0.5)/scale - 0.5
	case "half_pixel_symmetric":
		adj := float32(out) / (scale * float32(in))
		xo = float32(in)/2*(1-adj) + (xr+0.5)/scale - 0.5
	case "pytorch_half_pixel":
		if out > 1 {
			xo = (xr+0.5)/scale - 0.5
		}
	case "align_corners":
		if out > 1 {
			xo = xr * float32(in-1) / float32(out-1)
		}
	case "asymmetric":
		xo = xr / scale
	case "tf_half_pixel_for_nn":
		xo = (xr + 0.5) / scale
	default:
		return 0, fmt.Errorf("coordinate_transformation_mode %q not supported; supported: half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn", mode.coord)
	}
	var i float64
	f := float64(xo)
	switch mode.round {
	case "legacy": // ONNX Runtime's Upsample and Resize-10: floor up, ceil down
		i = math.Floor(f)
		if scale < 1 {
			i = math.Ceil(f)
		}
	case "round_prefer_floor":
		i = math.Round(f)
		if f == math.Floor(f)+0.5 {
			i = math.Floor(f)
		}
	case "round_prefer_ceil":
		i = math.Round(f)
		if f == math.Floor(f)+0.5 {
			i = math.Ceil(f)
		}
	case "floor":
		i = math.Floor(f)
	case "ceil":
		i = math.Ceil(f)
	default:
		return 0, fmt.Errorf("nearest_mode %q not supported; supported: round_prefer_floor, round_prefer_ceil, floor, ceil", mode.round)
	}
	return int(min(max(i, 0), float64(in-1))), nil
}
