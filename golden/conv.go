package golden

import "fmt"

// Conv2D is the direct convolution (cross-correlation) of x [C][H][W]
// with w [Cout][C][KH][KW], one stride for both axes, zero padding of
// padH rows and padW columns on each side, wrapped to acc: the sums
// before requantization, [Cout][OH][OW] with OH = (H + 2·padH − KH) /
// stride + 1 and OW likewise.
func Conv2D(x, w *Tensor, stride, padH, padW int, acc Int) (*Tensor, error) {
	return Conv2DGroups(x, w, stride, padH, padW, 1, acc)
}

// Conv2DGroups is the grouped convolution (ONNX Conv's group
// attribute): the C input and Cout output channels split into groups
// of C/groups and Cout/groups consecutive channels, and output channel
// o sees only the input channels of its group, o / (Cout/groups); w is
// [Cout][C/groups][KH][KW]. groups = 1 is Conv2D; groups = C (with
// w [Cout][1][KH][KW]) is the depthwise convolution.
func Conv2DGroups(x, w *Tensor, stride, padH, padW, groups int, acc Int) (*Tensor, error) {
	if x == nil || w == nil || len(x.Shape) != 3 || len(w.Shape) != 4 {
		return nil, fmt.Errorf("golden: Conv2D wants x [C][H][W] and w [Cout][C/groups][KH][KW]")
	}
	C, H, W := x.Shape[0], x.Shape[1], x.Shape[2]
	co, cg, kh, kw := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	switch {
	case groups < 1 || C%groups != 0 || co%groups != 0:
		return nil, fmt.Errorf("golden: Conv2D with %d groups of x %s and w %s: groups must divide C and Cout", groups, shapeString(x.Shape), shapeString(w.Shape))
	case cg != C/groups:
		return nil, fmt.Errorf("golden: Conv2D wants x [C][H][W] and w [Cout][C/groups][KH][KW], got x %s, w %s, %d groups", shapeString(x.Shape), shapeString(w.Shape), groups)
	case stride < 1 || padH < 0 || padW < 0:
		return nil, fmt.Errorf("golden: Conv2D with stride %d, padding %d×%d", stride, padH, padW)
	}
	oh, ow := (H+2*padH-kh)/stride+1, (W+2*padW-kw)/stride+1
	if H+2*padH < kh || W+2*padW < kw || oh < 1 || ow < 1 {
		return nil, fmt.Errorf("golden: Conv2D of x %s and w %s: kernel larger than the padded input", shapeString(x.Shape), shapeString(w.Shape))
	}
	og := co / groups // output channels per group
	out := New(co, oh, ow)
	for o := 0; o < co; o++ {
		c0 := o / og * cg // the group's first input channel
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var s int64
				for c := 0; c < cg; c++ {
					for ky := 0; ky < kh; ky++ {
						for kx := 0; kx < kw; kx++ {
							iy, ix := oy*stride+ky-padH, ox*stride+kx-padW
							if iy < 0 || iy >= H || ix < 0 || ix >= W {
								continue
							}
							s += x.Data[((c0+c)*H+iy)*W+ix] * w.Data[((o*cg+c)*kh+ky)*kw+kx]
						}
					}
				}
				out.Data[(o*oh+oy)*ow+ox] = acc.Wrap(s)
			}
		}
	}
	return out, nil
}

// Channels gathers channels of x [C][...]: channel i of the result is
// channel perm[i] of x (a channel shuffle, any permutation or
// selection). perm entries must lie in 0..C-1.
func Channels(x *Tensor, perm []int) (*Tensor, error) {
	if x == nil || len(x.Shape) < 1 {
		return nil, fmt.Errorf("golden: Channels wants a tensor [C][...]")
	}
	per := len(x.Data) / x.Shape[0]
	shape := append([]int{len(perm)}, x.Shape[1:]...)
	out := New(shape...)
	for i, c := range perm {
		if c < 0 || c >= x.Shape[0] {
			return nil, fmt.Errorf("golden: Channels: perm[%d] = %d is outside 0..%d", i, c, x.Shape[0]-1)
		}
		copy(out.Data[i*per:(i+1)*per], x.Data[c*per:(c+1)*per])
	}
	return out, nil
}

// ConcatChannels stacks tensors [Ci][...] of equal trailing dimensions
// along the first: [ΣCi][...].
func ConcatChannels(xs ...*Tensor) (*Tensor, error) {
	if len(xs) == 0 || xs[0] == nil || len(xs[0].Shape) < 1 {
		return nil, fmt.Errorf("golden: ConcatChannels wants at least one tensor [C][...]")
	}
	rest := xs[0].Shape[1:]
	c := 0
	for i, x := range xs {
		if x == nil || len(x.Shape) != len(xs[0].Shape) || shapeString(x.Shape[1:]) != shapeString(rest) {
			return nil, fmt.Errorf("golden: ConcatChannels: tensor %d does not have the trailing shape %s of tensor 0", i, shapeString(rest))
		}
		c += x.Shape[0]
	}
	out := New(append([]int{c}, rest...)...)
	at := 0
	for _, x := range xs {
		at += copy(out.Data[at:], x.Data)
	}
	return out, nil
}
