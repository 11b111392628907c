package lower

import (
	"fmt"
	"slices"

	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// This file lowers the nearest upsampling by 2 of detection and
// segmentation decoders: Resize (opset 10 on) and Upsample (7 to 9) of
// a [1,C,H,W] map to [1,C,2H,2W], onto compiler.Graph.Upsample (output
// pixel (i, j) is input pixel (⌊i/2⌋, ⌊j/2⌋)). The values are copied,
// so the scale stays.

// supportedModes names the coordinate_transformation_mode and
// nearest_mode pairs under which output position o of a scale of
// exactly 2 reads input ⌊o/2⌋. The modes map o = 2k, 2k+1 to k − 1/4,
// k + 1/4 (half_pixel, half_pixel_symmetric, pytorch_half_pixel), k,
// k + 1/2 (asymmetric), k + 1/4, k + 3/4 (tf_half_pixel_for_nn) or
// k − k/(2n−1), k + 1/2 − (k+1/2)/(2n−1) (align_corners, n input
// elements: o·(n−1)/(2n−1)), which each nearest_mode rounds to k or not. The lowering does not rely on this
// list: it asks the float executor (onnx.NearestSource) for every
// position.
const supportedModes = "half_pixel, half_pixel_symmetric, pytorch_half_pixel or align_corners with round_prefer_floor or round_prefer_ceil; asymmetric with floor or round_prefer_floor; tf_half_pixel_for_nn with floor"

// resize lowers Resize and Upsample in mode nearest by the scales
// [1,1,2,2] (or the sizes [N,C,2H,2W]) to compiler.Graph.Upsample.
func (l *lowering) resize(n *onnx.Node) error {
	in, s, err := l.input(n)
	if err != nil {
		return err
	}
	if m := n.Str("mode", "nearest"); m != "nearest" {
		return fmt.Errorf("mode %q: only nearest is supported", m)
	}
	from := l.shapes[in]
	if len(from) != 4 || from[0] != 1 {
		return fmt.Errorf("input shape %v: only feature maps [1,C,H,W] are upsampled", from)
	}
	scales, sizes, err := l.resizeFactors(n)
	if err != nil {
		return err
	}
	want := []int64{int64(l.net.batch), int64(from[1]), 2 * int64(from[2]), 2 * int64(from[3])} // sizes name the whole batch
	switch {
	case sizes == nil && !slices.Equal(scales, []float32{1, 1, 2, 2}):
		return fmt.Errorf("scales %v: only [1 1 2 2] (nearest ×2 along H and W) is supported", scales)
	case scales == nil && !slices.Equal(sizes, want):
		return fmt.Errorf("sizes %v of a %v input: only %v (nearest ×2 along H and W) is supported", sizes, from, want)
	}
	if err := l.resizeMode(n, from[2], from[3]); err != nil {
		return err
	}
	l.emit(in, n.Outputs[0], s, func(g *compiler.Graph, x *compiler.Value) *compiler.Value { return g.Upsample(x, 2) })
	return nil
}

// resizeMode refuses the attributes of a Resize of the plane h×w by 2
// whose output position o does not read input ⌊o/2⌋ along both axes,
// as the float executor maps positions (onnx.NearestSource). Upsample
// and Resize-10 read ⌊o/scale⌋.
func (l *lowering) resizeMode(n *onnx.Node, h, w int) error {
	coord, round := "asymmetric", "legacy"
	if n.OpType == "Resize" && l.opset() >= 11 {
		if a := n.Int("antialias", 0); a != 0 {
			return fmt.Errorf("antialias %d: only 0 is supported", a)
		}
		if _, ok := n.Attrs["axes"]; ok {
			return fmt.Errorf("attribute axes: not supported; supported: scales or sizes over every axis")
		}
		if p := n.Str("keep_aspect_ratio_policy", "stretch"); p != "stretch" {
			return fmt.Errorf("keep_aspect_ratio_policy %q: only stretch is supported", p)
		}
		coord, round = n.Str("coordinate_transformation_mode", "half_pixel"), n.Str("nearest_mode", "round_prefer_floor")
	}
	for _, axis := range []struct {
		name string
		in   int
	}{{"H", h}, {"W", w}} {
		for o := range 2 * axis.in {
			i, err := onnx.NearestSource(o, axis.in, 2*axis.in, 2, coord, round)
			if err != nil {
				return err
			}
			if i != o/2 {
				return fmt.Errorf("coordinate_transformation_mode %q with nearest_mode %q: output %d along %s (of %d) reads input %d, not ⌊o/2⌋ = %d; supported: %s",
					coord, round, o, axis.name, 2*axis.in, i, o/2, supportedModes)
			}
		}
	}
	return nil
}

// resizeFactors reads the scales (Upsample's attribute before opset 9,
// else the input: 1 for Upsample and Resize-10, 2 for Resize) or the
// sizes (Resize input 3); exactly one of them is non-nil.
func (l *lowering) resizeFactors(n *onnx.Node) ([]float32, []int64, error) {
	if n.OpType == "Upsample" && l.opset() < 9 {
		s := n.Floats("scales", nil)
		if s == nil {
			return nil, nil, fmt.Errorf("no scales attribute")
		}
		return s, nil, nil
	}
	at := 1
	if n.OpType == "Resize" && l.opset() >= 11 {
		at = 2
	}
	if at < len(n.Inputs) && n.Inputs[at] != "" {
		c, ok := l.consts[n.Inputs[at]]
		if !ok {
			return nil, nil, fmt.Errorf("scales %q: not a constant; supported: constant scales or sizes", n.Inputs[at])
		}
		if len(c.Data) > 0 {
			return c.Data, nil, nil
		}
	}
	if n.OpType == "Resize" && len(n.Inputs) > 3 && n.Inputs[3] != "" {
		s, ok := l.ints[n.Inputs[3]]
		if !ok {
			return nil, nil, fmt.Errorf("sizes %q: not a constant; supported: constant scales or sizes", n.Inputs[3])
		}
		return nil, s, nil
	}
	return nil, nil, fmt.Errorf("neither scales nor sizes given")
}
