package lower

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// Random geometries of dilated MaxPools and AveragePools (taps, dilations,
// stride, pads of each side, plane), each lowered, run on the reference
// machine bit for bit as the golden models (machineRun) and within its
// bound of the float executor (TestDilatedPoolLowered's; for an average
// of count_include_pad 0 the largest K/n of its windows), on signed
// inputs. Geometries with a window of padding only are left out (ONNX's
// −∞ and NaN), and averages whose conv a Conv's limits refuse (the
// spread-out window within max_kernel, pads with a symmetric cover below
// it); enough remain to count.
func TestDilatedPoolSweep(t *testing.T) {
	cfg := npu.DefaultConfig()
	rng := rand.New(rand.NewPCG(11, 12))
	ran := 0
	for n := 0; n < 120; n++ {
		kh, kw := 1+rng.IntN(3), 1+rng.IntN(3)
		dh, dw := 1+rng.IntN(3), 1+rng.IntN(3)
		if dh == 1 && dw == 1 {
			dh = 2
		}
		s := 1 + rng.IntN(3)
		if rng.IntN(3) == 0 {
			dw = max(dw, 2)
			s, dh = 2*dw, dw // the phase form
		}
		eh, ew := (kh-1)*dh+1, (kw-1)*dw+1
		pads := []int64{int64(rng.IntN(eh)), int64(rng.IntN(ew)), int64(rng.IntN(eh)), int64(rng.IntN(ew))}
		h, w := eh+rng.IntN(8), ew+rng.IntN(8)
		op, cip := "MaxPool", int64(0)
		if rng.IntN(3) == 0 {
			op, cip = "AveragePool", int64(rng.IntN(2))
		}
		rows := dilatedAxis{n: h, lo: 0, hi: h, k: kh, d: dh, s: s, begin: int(pads[0]), end: int(pads[2])}
		cols := dilatedAxis{n: w, lo: 0, hi: w, k: kw, d: dw, s: s, begin: int(pads[1]), end: int(pads[3])}
		if rows.check("row") != nil || cols.check("column") != nil {
			continue
		}
		if op == "AveragePool" { // a conv of the spread-out window: within max_kernel, pads as a Conv's (convPlan)
			_, err := convPlan(onnx.Window{KH: eh, KW: ew, SH: s, SW: s, Top: int(pads[0]), Left: int(pads[1]), Bottom: int(pads[2]), Right: int(pads[3])}, h, w)
			if err != nil || eh > cfg.MaxKernel || ew > cfg.MaxKernel {
				continue
			}
		}
		amp := 0.0
		if op == "AveragePool" && cip == 0 {
			for i := range rows.out() {
				for j := range cols.out() {
					amp = max(amp, float64(kh*kw)/float64(rows.count(i)*cols.count(j)))
				}
			}
		}
		name := fmt.Sprintf("%s %dx%d dilations %dx%d stride %d pads %v count_include_pad %d over %dx%d", op, kh, kw, dh, dw, s, pads, cip, h, w)
		t.Run(name, func(t *testing.T) {
			dims := []int64{1, 2, int64(h), int64(w)}
			b := onnxtest.New(13).Input("x", dims...).Output("y").
				Node("p", op, []string{"x"}, "y", oints("kernel_shape", int64(kh), int64(kw)), oints("dilations", int64(dh), int64(dw)),
					oints("strides", int64(s), int64(s)), oints("pads", pads...), i64("count_include_pad", cip))
			if op == "MaxPool" {
				b = onnxtest.New(13).Input("x", dims...).Output("y").
					Node("p", op, []string{"x"}, "y", oints("kernel_shape", int64(kh), int64(kw)), oints("dilations", int64(dh), int64(dw)),
						oints("strides", int64(s), int64(s)), oints("pads", pads...))
			}
			m := loadModel(t, b)
			x := &onnx.Array{Shape: []int{1, 2, h, w}, Data: newShapeRnd(uint64(n)).vals(1, false, dims...)}
			float, net := floatAndQuantize(t, m, x, cfg)
			deq, _ := machineRun(t, cfg, net, x)
			sy := net.OutputScale()
			bound := 0.5*net.InputScale()/sy + 0.5 + 0.5*amp + 0.1
			var worst float64
			for i, v := range float["y"].Data {
				worst = max(worst, math.Abs(float64(deq.Data[i]-v))/sy)
			}
			if worst > bound {
				t.Errorf("max |int8 − float| = %.2f output steps, more than %.2f", worst, bound)
			}
		})
		ran++
	}
	if ran < 60 {
		t.Errorf("%d geometries ran, want at least 60 of the 120 drawn", ran)
	}
	t.Logf("%d geometries", ran)
}
