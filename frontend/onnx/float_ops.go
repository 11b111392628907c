package onnx

import (
	"fmt"
	"math"
	"slices"
)

func relu(x *Array) *Array {
	y := NewArray(x.Shape...)
	for i, v := range x.Data {
		y.Data[i] = max(v, 0)
	}
	return y
}

// abs is ONNX Abs.
func abs(x *Array) *Array {
	y := NewArray(x.Shape...)
	for i, v := range x.Data {
		y.Data[i] = max(v, -v)
	}
	return y
}

// flatten is ONNX Flatten: dims before axis become rows, the rest columns.
func flatten(x *Array, axis int) (*Array, error) {
	if axis < 0 {
		axis += len(x.Shape)
	}
	if axis < 0 || axis > len(x.Shape) {
		return nil, fmt.Errorf("axis %d out of range for rank %d", axis, len(x.Shape))
	}
	return &Array{Shape: []int{numel(x.Shape[:axis]), numel(x.Shape[axis:])}, Data: x.Data, Ints: x.Ints}, nil
}

// ReshapeDims resolves a Reshape target for a tensor of shape in: 0 copies
// the input's dim at that index, -1 takes what is left.
func ReshapeDims(in []int, shape []int64) ([]int, error) {
	out := make([]int, len(shape))
	infer := -1
	known := 1
	for i, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = i
			continue
		case s == 0 && i < len(in):
			out[i] = in[i]
		case s > 0:
			out[i] = int(s)
		default:
			return nil, fmt.Errorf("reshape %v: bad dim %d at %d", shape, s, i)
		}
		known *= out[i]
	}
	n := numel(in)
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, fmt.Errorf("reshape %v of %v: -1 cannot be inferred", shape, in)
		}
		out[infer] = n / known
	} else if known != n {
		return nil, fmt.Errorf("reshape %v of %v: %d elements, want %d", shape, in, known, n)
	}
	return out, nil
}

func reshape(x *Array, shape []int64) (*Array, error) {
	dims, err := ReshapeDims(x.Shape, shape)
	if err != nil {
		return nil, err
	}
	return &Array{Shape: dims, Data: x.Data, Ints: x.Ints}, nil
}

// add is elementwise addition with multidirectional (numpy) broadcasting.
func add(a, b *Array) (*Array, error) {
	return broadcast(a, b, func(x, y float32) float32 { return x + y })
}

// broadcast applies f to a and b element by element with multidirectional
// (numpy) broadcasting.
func broadcast(a, b *Array, f func(x, y float32) float32) (*Array, error) {
	rank := max(len(a.Shape), len(b.Shape))
	pa, pb := padRank(a.Shape, rank), padRank(b.Shape, rank)
	out := make([]int, rank)
	for i := range out {
		switch {
		case pa[i] == pb[i] || pb[i] == 1:
			out[i] = pa[i]
		case pa[i] == 1:
			out[i] = pb[i]
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a.Shape, b.Shape)
		}
	}
	y := NewArray(out...)
	idx := make([]int, rank)
	for i := range y.Data {
		y.Data[i] = f(a.Data[bcastIndex(idx, pa)], b.Data[bcastIndex(idx, pb)])
		next(idx, out)
	}
	return y, nil
}

func padRank(shape []int, rank int) []int {
	p := slices.Repeat([]int{1}, rank-len(shape))
	return append(p, shape...)
}

// bcastIndex is the flat index into a tensor of shape (rank-padded) at
// idx, with size-1 dims repeating.
func bcastIndex(idx, shape []int) int {
	f := 0
	for i, d := range shape {
		f *= d
		if d != 1 {
			f += idx[i]
		}
	}
	return f
}

// next advances a row-major multi-index.
func next(idx, shape []int) {
	for i := len(idx) - 1; i >= 0; i-- {
		if idx[i]++; idx[i] < shape[i] {
			return
		}
		idx[i] = 0
	}
}

// matMul is the 2-D matrix product with float64 accumulation.
func matMul(a, b *Array) (*Array, error) {
	if len(a.Shape) != 2 || len(b.Shape) != 2 || a.Shape[1] != b.Shape[0] {
		return nil, fmt.Errorf("shapes %v and %v: want [M,K]·[K,N]", a.Shape, b.Shape)
	}
	m, k, n := a.Shape[0], a.Shape[1], b.Shape[1]
	y := NewArray(m, n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				s += float64(a.Data[i*k+l]) * float64(b.Data[l*n+j])
			}
			y.Data[i*n+j] = float32(s)
		}
	}
	return y, nil
}

// conv is Conv (cross-correlation) of x [N,C,H,W] with w [M,C,kH,kW],
// group 1, plus the optional bias b [M].
func conv(x, w, b *Array, n *Node) (*Array, error) {
	if len(x.Shape) != 4 || len(w.Shape) != 4 || x.Shape[1] != w.Shape[1] {
		return nil, fmt.Errorf("shapes %v and %v: want [N,C,H,W] and [M,C,kH,kW]", x.Shape, w.Shape)
	}
	if g := n.Int("group", 1); g != 1 {
		return nil, fmt.Errorf("group %d: only 1 is supported", g)
	}
	if b != nil && (len(b.Shape) != 1 || b.Shape[0] != w.Shape[0]) {
		return nil, fmt.Errorf("bias shape %v: want [%d]", b.Shape, w.Shape[0])
	}
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	M, KH, KW := w.Shape[0], w.Shape[2], w.Shape[3]
	win, err := WindowOf(n, H, W, KH, KW)
	if err != nil {
		return nil, err
	}
	OH, OW := win.Out(H, W)
	y := NewArray(N, M, OH, OW)
	for bi := 0; bi < N; bi++ {
		for m := 0; m < M; m++ {
			for oy := 0; oy < OH; oy++ {
				for ox := 0; ox < OW; ox++ {
					var s float64
					if b != nil {
						s = float64(b.Data[m])
					}
					for c := 0; c < C; c++ {
						for ky := 0; ky < KH; ky++ {
							iy := oy*win.SH + ky - win.Top
							for kx := 0; kx < KW; kx++ {
								ix := ox*win.SW + kx - win.Left
								if iy < 0 || iy >= H || ix < 0 || ix >= W {
									continue // zero padding
								}
								s += float64(x.Data[((bi*C+c)*H+iy)*W+ix]) * float64(w.Data[((m*C+c)*KH+ky)*KW+kx])
							}
						}
					}
					y.Data[((bi*M+m)*OH+oy)*OW+ox] = float32(s)
				}
			}
		}
	}
	return y, nil
}

// maxPool is MaxPool over [N,C,H,W]; padded positions never win.
func maxPool(x *Array, n *Node) (*Array, error) {
	if len(x.Shape) != 4 {
		return nil, fmt.Errorf("shape %v: want [N,C,H,W]", x.Shape)
	}
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	win, err := WindowOf(n, H, W, 0, 0)
	if err != nil {
		return nil, err
	}
	OH, OW := win.Out(H, W)
	y := NewArray(N, C, OH, OW)
	for p := 0; p < N*C; p++ {
		for oy := 0; oy < OH; oy++ {
			for ox := 0; ox < OW; ox++ {
				best := float32(math.Inf(-1))
				for ky := 0; ky < win.KH; ky++ {
					for kx := 0; kx < win.KW; kx++ {
						iy, ix := oy*win.SH+ky-win.Top, ox*win.SW+kx-win.Left
						if iy >= 0 && iy < H && ix >= 0 && ix < W {
							best = max(best, x.Data[(p*H+iy)*W+ix])
						}
					}
				}
				y.Data[(p*OH+oy)*OW+ox] = best
			}
		}
	}
	return y, nil
}
