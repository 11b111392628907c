package onnx

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// This file holds the float executor's windowed ops, Conv, MaxPool and
// AveragePool, over one or two spatial axes. They are the bulk of an
// ImageNet network's time, so their loops are written for speed: no
// im2col copy, the innermost loop a contiguous multiply-add along an
// output row with its bounds worked out beforehand (grid.span), and the
// output planes shared among goroutines.

// parallel runs f over [0, n) in chunks on every CPU.
func parallel(n int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		f(0, n)
		return
	}
	chunk := max(1, n/(4*workers)) // several chunks each: planes differ in cost at the borders
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				f(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// outShape is [N, C, OH, OW] (or [N, C, OW] for one spatial axis).
func (g grid) outShape(n, c, rank int) []int {
	if rank == 3 {
		return []int{n, c, g.OW}
	}
	return []int{n, c, g.OH, g.OW}
}

func evalConv(n *Node, in operands) (*Array, error) {
	x, w, err := in.float2()
	if err != nil {
		return nil, err
	}
	b, err := in.optFloat(2)
	if err != nil {
		return nil, err
	}
	return conv(x, w, b, n)
}

// conv is Conv (cross-correlation) of x [N,C,(H,)W] with w
// [M,C/group,(KH,)KW] plus the optional bias b [M], in float32 (as ONNX
// Runtime sums). group splits the channels into that many independent
// convolutions; group = C is a depthwise conv.
func conv(x, w, b *Array, n *Node) (*Array, error) {
	if len(x.Shape) != len(w.Shape) || len(x.Shape) < 3 {
		return nil, fmt.Errorf("shapes %v and %v: want X [N,C,(H,)W] and W [M,C/group,(KH,)KW] of one rank", x.Shape, w.Shape)
	}
	group := int(n.Int("group", 1))
	N, C, M, CG := x.Shape[0], x.Shape[1], w.Shape[0], w.Shape[1]
	if group < 1 || C%group != 0 || M%group != 0 || CG != C/group {
		return nil, fmt.Errorf("group %d, input channels %d, weights %v: want C and M divisible by group and weight dim 1 = C/group", group, C, w.Shape)
	}
	kh, kw := 1, w.Shape[len(w.Shape)-1]
	if len(w.Shape) == 4 {
		kh = w.Shape[2]
	}
	g, err := gridOf(n, x.Shape, kh, kw)
	if err != nil {
		return nil, err
	}
	if b != nil && (len(b.Shape) != 1 || b.Shape[0] != M) {
		return nil, fmt.Errorf("bias shape %v: want [%d]", b.Shape, M)
	}
	y := NewArray(g.outShape(N, M, len(x.Shape))...)
	plane, oplane, kernel, perGroup := g.H*g.W, g.OH*g.OW, kh*kw, M/group
	// A job is a block of up to four output channels of one group and
	// batch element: each input row read feeds four multiply-adds.
	blocks := (perGroup + 3) / 4
	parallel(N*group*blocks, func(lo, hi int) {
		var out, k [4][]float32
		for job := lo; job < hi; job++ {
			bi, gi, blk := job/(group*blocks), job/blocks%group, job%blocks
			m0 := gi*perGroup + blk*4
			count := min(4, (gi+1)*perGroup-m0)
			for j := range 4 {
				m := m0 + min(j, count-1) // a short block repeats its last channel
				out[j] = y.Data[(bi*M+m)*oplane : (bi*M+m+1)*oplane]
			}
			for j := range count {
				if b != nil {
					for i := range out[j] {
						out[j][i] = b.Data[m0+j]
					}
				}
			}
			first := bi*C + gi*CG // the group's first input channel
			for c := range CG {
				for j := range 4 {
					m := m0 + min(j, count-1)
					k[j] = w.Data[(m*CG+c)*kernel : (m*CG+c+1)*kernel]
				}
				in := x.Data[(first+c)*plane : (first+c+1)*plane]
				if count == 4 {
					g.accumulate4(&out, in, &k)
					continue
				}
				for j := range count {
					g.accumulate(out[j], in, k[j])
				}
			}
		}
	})
	return y, nil
}

// accumulate adds the correlation of one input plane with one kernel to
// an output plane: for each tap, a multiply-add over the output rows and
// columns where the tap falls inside the input (zero padding elsewhere).
func (g grid) accumulate(out, in, k []float32) {
	for ky := range g.KH {
		offY := ky*g.DH - g.Top
		oy0, oy1 := span(g.OH, g.SH, offY, g.H)
		for kx := range g.KW {
			wv := k[ky*g.KW+kx]
			offX := kx*g.DW - g.Lft
			ox0, ox1 := span(g.OW, g.SW, offX, g.W)
			if ox0 >= ox1 {
				continue
			}
			for oy := oy0; oy < oy1; oy++ {
				row := in[(oy*g.SH+offY)*g.W : (oy*g.SH+offY+1)*g.W]
				dst := out[oy*g.OW+ox0 : oy*g.OW+ox1]
				if g.SW == 1 {
					src := row[ox0+offX : ox1+offX]
					for i := range dst {
						dst[i] += wv * src[i]
					}
					continue
				}
				ix := ox0*g.SW + offX
				for i := range dst {
					dst[i] += wv * row[ix]
					ix += g.SW
				}
			}
		}
	}
}

// accumulate4 is accumulate for four output planes and their kernels at
// once, each input element loaded once for the four.
func (g grid) accumulate4(out *[4][]float32, in []float32, k *[4][]float32) {
	for ky := range g.KH {
		offY := ky*g.DH - g.Top
		oy0, oy1 := span(g.OH, g.SH, offY, g.H)
		for kx := range g.KW {
			t := ky*g.KW + kx
			w0, w1, w2, w3 := k[0][t], k[1][t], k[2][t], k[3][t]
			offX := kx*g.DW - g.Lft
			ox0, ox1 := span(g.OW, g.SW, offX, g.W)
			if ox0 >= ox1 {
				continue
			}
			for oy := oy0; oy < oy1; oy++ {
				row := in[(oy*g.SH+offY)*g.W : (oy*g.SH+offY+1)*g.W]
				o := oy*g.OW + ox0
				n := ox1 - ox0
				d0, d1, d2, d3 := out[0][o:o+n], out[1][o:o+n], out[2][o:o+n], out[3][o:o+n]
				if g.SW == 1 {
					src := row[ox0+offX : ox1+offX]
					src = src[:n]
					for i, v := range src {
						d0[i] += w0 * v
						d1[i] += w1 * v
						d2[i] += w2 * v
						d3[i] += w3 * v
					}
					continue
				}
				ix := ox0*g.SW + offX
				for i := range n {
					v := row[ix]
					d0[i] += w0 * v
					d1[i] += w1 * v
					d2[i] += w2 * v
					d3[i] += w3 * v
					ix += g.SW
				}
			}
		}
	}
}

func evalMaxPool(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	return maxPool(x, n)
}

// maxPool is MaxPool over [N,C,(H,)W]; padded positions never win.
func maxPool(x *Array, n *Node) (*Array, error) {
	if len(x.Shape) < 3 {
		return nil, fmt.Errorf("shape %v: want [N,C,(H,)W]", x.Shape)
	}
	g, err := gridOf(n, x.Shape, 0, 0)
	if err != nil {
		return nil, err
	}
	return g.pool(x, func(plane []float32, oy, ox int) float32 {
		best := float32(math.Inf(-1))
		g.taps(oy, ox, func(iy, ix int) {
			if iy >= 0 && iy < g.H && ix >= 0 && ix < g.W {
				best = max(best, plane[iy*g.W+ix])
			}
		})
		return best
	}), nil
}

// evalAveragePool is AveragePool over [N,C,(H,)W]: the window's sum over
// the number of its taps inside the plane (count_include_pad 0, the
// default) or inside the padded plane (count_include_pad 1: pads count
// as zeros; with ceil_mode, taps past the end pads still do not count).
func evalAveragePool(n *Node, in operands) (*Array, error) {
	x, err := in.float(0)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) < 3 {
		return nil, fmt.Errorf("shape %v: want [N,C,(H,)W]", x.Shape)
	}
	g, err := gridOf(n, x.Shape, 0, 0)
	if err != nil {
		return nil, err
	}
	includePad := n.Int("count_include_pad", 0) != 0
	return g.pool(x, func(plane []float32, oy, ox int) float32 {
		var s float32
		count := 0
		g.taps(oy, ox, func(iy, ix int) {
			inside := iy >= 0 && iy < g.H && ix >= 0 && ix < g.W
			if inside {
				s += plane[iy*g.W+ix]
			}
			if inside || includePad && iy >= -g.Top && iy < g.H+g.Bot && ix >= -g.Lft && ix < g.W+g.Rgt {
				count++
			}
		})
		return s / float32(count)
	}), nil
}

// pool applies f to every output position of every [N,C] plane of x.
func (g grid) pool(x *Array, f func(plane []float32, oy, ox int) float32) *Array {
	N, C := x.Shape[0], x.Shape[1]
	y := NewArray(g.outShape(N, C, len(x.Shape))...)
	plane, oplane := g.H*g.W, g.OH*g.OW
	parallel(N*C, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			in, out := x.Data[p*plane:(p+1)*plane], y.Data[p*oplane:(p+1)*oplane]
			for oy := range g.OH {
				for ox := range g.OW {
					out[oy*g.OW+ox] = f(in, oy, ox)
				}
			}
		}
	})
	return y
}

// taps calls f with the input position of every kernel tap of the
// window at output (oy, ox), inside the plane or not.
func (g grid) taps(oy, ox int, f func(iy, ix int)) {
	for ky := range g.KH {
		iy := oy*g.SH + ky*g.DH - g.Top
		for kx := range g.KW {
			f(iy, ox*g.SW+kx*g.DW-g.Lft)
		}
	}
}
