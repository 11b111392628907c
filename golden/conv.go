package golden

import "fmt"

// Conv2D is the direct convolution (cross-correlation) of x [C][H][W]
// with w [Cout][C][KH][KW], one stride for both axes, zero padding of
// padH rows and padW columns on each side, wrapped to acc: the sums
// before requantization, [Cout][OH][OW] with OH = (H + 2·padH − KH) /
// stride + 1 and OW likewise.
func Conv2D(x, w *Tensor, stride, padH, padW int, acc Int) (*Tensor, error) {
	if x == nil || w == nil || len(x.Shape) != 3 || len(w.Shape) != 4 || w.Shape[1] != x.Shape[0] {
		return nil, fmt.Errorf("golden: Conv2D wants x [C][H][W] and w [Cout][C][KH][KW]")
	}
	if stride < 1 || padH < 0 || padW < 0 {
		return nil, fmt.Errorf("golden: Conv2D with stride %d, padding %d×%d", stride, padH, padW)
	}
	C, H, W := x.Shape[0], x.Shape[1], x.Shape[2]
	co, kh, kw := w.Shape[0], w.Shape[2], w.Shape[3]
	oh, ow := (H+2*padH-kh)/stride+1, (W+2*padW-kw)/stride+1
	if H+2*padH < kh || W+2*padW < kw || oh < 1 || ow < 1 {
		return nil, fmt.Errorf("golden: Conv2D of x %s and w %s: kernel larger than the padded input", shapeString(x.Shape), shapeString(w.Shape))
	}
	out := New(co, oh, ow)
	for o := 0; o < co; o++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				var s int64
				for c := 0; c < C; c++ {
					for ky := 0; ky < kh; ky++ {
						for kx := 0; kx < kw; kx++ {
							iy, ix := oy*stride+ky-padH, ox*stride+kx-padW
							if iy < 0 || iy >= H || ix < 0 || ix >= W {
								continue
							}
							s += x.Data[(c*H+iy)*W+ix] * w.Data[((o*C+c)*kh+ky)*kw+kx]
						}
					}
				}
				out.Data[(o*oh+oy)*ow+ox] = acc.Wrap(s)
			}
		}
	}
	return out, nil
}
