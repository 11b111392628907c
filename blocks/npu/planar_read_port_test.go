package npu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/isa/planar"
)

// A two-tensor eltwise through the NPU (DMA in of a and b, the planar
// add, DMA out), written by hand in descriptors, on the Go simulator:
// with planar_read_port the result read back is the same golden sum,
// with one post unit per row and with passes (planar_lanes 2 of 4), and
// the planar engine is busy exactly as many cycles fewer as the cycle
// formula says (N per pass).
func TestPlanarReadPortNPU(t *testing.T) {
	for _, lanes := range []int{0, 2} {
		t.Run(fmt.Sprintf("planar_lanes_%d", lanes), func(t *testing.T) {
			c := planarLanes(smallConfig(), lanes)
			rc := planarReadPort(c)
			task := planar.Task{Op: planar.OpEltwise, Fn: planar.FnAdd, Mask: 0xf, Src: 0, Src2: 64, Dst: 128, H: 1, W: 24, Scale: 1}
			got, gotPort := eltwiseByHand(t, c, task), eltwiseByHand(t, rc, task)
			busy, busyPort := got.busy, gotPort.busy
			if d := cmp.Diff(got.want, got.out); d != "" {
				t.Errorf("without the port (-want +got):\n%s", d)
			}
			if d := cmp.Diff(gotPort.want, gotPort.out); d != "" {
				t.Errorf("with the port (-want +got):\n%s", d)
			}
			saved, formula := busy-busyPort, c.Planar().Cycles(task)-rc.Planar().Cycles(task)
			t.Logf("planar busy %d cycles, %d with the port (formula: %d fewer)", busy, busyPort, formula)
			if saved != formula || formula != c.Planar().PassesOf(task.Mask)*task.W {
				t.Errorf("the port saved %d planar busy cycles, the formula %d, want N·passes = %d", saved, formula, c.Planar().PassesOf(task.Mask)*task.W)
			}
		})
	}
}

// eltRun is one hand-written eltwise run: the lines read back, the
// golden ones, and the planar engine's busy cycles.
type eltRun struct {
	out, want [][]int64
	busy      int
}

// eltwiseByHand loads random a (lines 0..) and b (lines 32..) into the
// state buffer at task.Src and task.Src2, runs task and stores its
// result to lines 200...
func eltwiseByHand(t *testing.T, c Config, task planar.Task) eltRun {
	t.Helper()
	h, _ := newHost(t, c)
	rng := rand.New(rand.NewPCG(5, 6))
	M := task.H * task.W
	var res eltRun
	a, b := make([][]int64, M), make([][]int64, M)
	for m := range M {
		a[m], b[m] = make([]int64, c.Rows), make([]int64, c.Rows)
		for p := range c.Rows {
			a[m][p], b[m][p] = int64(rng.IntN(256)-128), int64(rng.IntN(256)-128)
		}
		h.writeLine(m, a[m])
		h.writeLine(32+m, b[m])
	}
	t0 := h.push(isa.Descriptor{Engine: isa.DMAIn, Op: isa.DMAInLoad, Src: 0, Dst: uint64(task.Src), D0: uint64(M), D1: 1})
	t1 := h.push(isa.Descriptor{Engine: isa.DMAIn, Op: isa.DMAInLoad, Src: 32, Dst: uint64(task.Src2), D0: uint64(M), D1: 1})
	t2 := h.push(h.planarDesc(task, t0, t1))
	h.push(isa.Descriptor{Engine: isa.DMAOut, Op: isa.DMAOutStore, Src: uint64(task.Dst), Dst: 200, D0: uint64(M), D1: 1, Deps: []uint64{t2}})
	h.wait(20000)
	for m := range M {
		res.out = append(res.out, h.readLine(200+m))
		w := make([]int64, c.Rows)
		for p := range w {
			w[p] = max(-128, min(127, a[m][p]+b[m][p]))
		}
		res.want = append(res.want, w)
	}
	for _, p := range []string{"psum_overrun", "err_code", "planar_err_code"} {
		if v := h.s.Peek(p); v != 0 {
			t.Errorf("%s = %d", p, v)
		}
	}
	res.busy = int(h.s.Peek("planar_busy_cycles"))
	return res
}
