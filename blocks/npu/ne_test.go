package npu

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify/simtest"
)

// neBench is the NE with the memories it uses: state buffer (pe and wl
// clients; the others idle), psum buffer (write side), weight buffer
// (written through the bench's wb port). The task port is the NE's.
func neBench(t testing.TB, c Config) *hdl.Design {
	t.Helper()
	neMod, err := neController(c)
	if err != nil {
		t.Fatal(err)
	}
	sbMod, err := sram.StateBuffer(c.SRAM().State, false)
	if err != nil {
		t.Fatal(err)
	}
	pbMod, err := sram.PsumBuffer(c.SRAM().Psum, false)
	if err != nil {
		t.Fatal(err)
	}
	m := hdl.NewModule("ne_bench")
	ne := m.Instance("ne", neMod)
	for _, p := range neMod.Ports {
		if p.Kind == hdl.Input && len(p.Name) > 2 && p.Name[:2] == "t_" {
			ne.Connect(p.Name, m.Input(p.Name, p.Type))
		}
	}
	for _, p := range []string{"t_ready", "done", "busy", "stall", "mac_count", "skip_count"} {
		m.Output(p, ne.Out(p).Type).Set(ne.Out(p))
	}
	sb := m.Instance("sb", sbMod)
	for _, cl := range []string{"pe", "wl"} {
		sb.Connect(cl+"_valid", ne.Out(cl+"_valid")).Connect(cl+"_addr", ne.Out(cl+"_addr")).Connect(cl+"_mask", ne.Out(cl+"_mask"))
		ne.Connect(cl+"_ready", sb.Out(cl+"_ready"))
		for p := range c.Rows {
			ne.Connect(fmt.Sprintf("%s_rdata_%d", cl, p), sb.Out(fmt.Sprintf("%s_rdata_%d", cl, p)))
		}
	}
	tieOff(sb)
	pb := m.Instance("pb", pbMod)
	pb.Connect("wr_valid", ne.Out("out_valid")).Connect("wr_addr", ne.Out("out_entry")).
		Connect("wr_acc", ne.Out("out_acc")).Connect("wr_mask", hdl.U(c.Cols, 1<<uint(c.Cols)-1))
	for k := range c.Cols {
		pb.Connect(fmt.Sprintf("wr_data_%d", k), ne.Out(fmt.Sprintf("out_psum_%d", k)))
	}
	tieOff(pb)
	over := m.Reg("over", hdl.Bool, 0)
	over.SetNext(hdl.U(1, 1))
	over.SetEnable(ne.Out("out_valid").And(pb.Out("wr_ready").Not()))
	m.Output("overrun", hdl.Bool).Set(over)
	wb := m.Instance("wb", weightBuffer(c))
	wb.Connect("wr_valid", m.Input("wb_wr_valid", hdl.Bool)).Connect("wr_addr", m.Input("wb_wr_addr", hdl.UInt(log2(c.WeightDepth)))).
		Connect("wr_data", m.Input("wb_wr_data", hdl.UInt(c.Cols*c.ElemWidth)))
	wb.Connect("rd_addr", ne.Out("wb_addr"))
	ne.Connect("wb_rdata", wb.Out("rd_data"))
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// neTask is one conv/gemm task in the doc.go terms.
type neTask struct {
	src, aux, dst      int
	h, w, ct           int
	kh, kw, stride     int
	padH, padW, oh, ow int
	acc                bool
	transpose          bool // src, dst, h = rows, w = columns
}

// neGolden applies the doc.go semantics of a conv task to a psum image.
func neGolden(c Config, state [][]int64, weights [][]int64, psum [][]int64, t neTask) {
	mask := func(v int64) int64 { return int64(int32(v)) } // acc_width 32 in the tests
	if t.transpose {
		for i := 0; i < t.h; i++ {
			for j := 0; j < c.Cols; j++ {
				v := int64(0)
				if j < t.w {
					v = state[i][(t.src+j)%c.StateDepth]
				}
				psum[j][(t.dst+i)%c.PsumDepth] = v
			}
		}
		return
	}
	p := 0
	for ct := 0; ct < t.ct; ct++ {
		for ky := 0; ky < t.kh; ky++ {
			for kx := 0; kx < t.kw; kx++ {
				for oy := 0; oy < t.oh; oy++ {
					for ox := 0; ox < t.ow; ox++ {
						iy, ix := oy*t.stride+ky-t.padH, ox*t.stride+kx-t.padW
						e := (t.dst + oy*t.ow + ox) % c.PsumDepth
						for col := 0; col < c.Cols; col++ {
							var s int64
							if iy >= 0 && iy < t.h && ix >= 0 && ix < t.w {
								a := (t.src + ct*t.h*t.w + iy*t.w + ix) % c.StateDepth
								for r := 0; r < c.Rows; r++ {
									s += state[r][a] * weights[(t.aux+p*c.Rows+r)%c.WeightDepth][col]
								}
							}
							if t.acc || p > 0 {
								psum[col][e] = mask(psum[col][e] + s)
							} else {
								psum[col][e] = mask(s)
							}
						}
					}
				}
				p++
			}
		}
	}
}

func smallNEConfig() Config {
	c := DefaultConfig()
	c.Rows, c.Cols, c.StateDepth, c.PsumDepth, c.WeightDepth = 4, 4, 256, 64, 64
	return c
}

func TestNEConv(t *testing.T) {
	c := smallNEConfig()
	d := neBench(t, c)
	dr := simtest.New(t, d)
	rng := rand.New(rand.NewPCG(7, 8))
	state := make([][]int64, c.Rows)
	for r := range state {
		state[r] = make([]int64, c.StateDepth)
		for a := range state[r] {
			v := int64(rng.IntN(256) - 128)
			if rng.IntN(4) == 0 {
				v = 0
			}
			state[r][a] = v
			dr.Preload(fmt.Sprintf("sb.bank_%d.ram", r), a, big.NewInt(v&(1<<uint(c.ElemWidth)-1)))
		}
	}
	weights := make([][]int64, c.WeightDepth)
	for a := range weights {
		weights[a] = make([]int64, c.Cols)
		line := new(big.Int)
		for col := range c.Cols {
			v := int64(rng.IntN(256) - 128)
			weights[a][col] = v
			line.Or(line, new(big.Int).Lsh(big.NewInt(v&0xff), uint(8*col)))
		}
		dr.Preload("wb.rows", a, line)
	}
	psum := make([][]int64, c.Cols)
	for k := range psum {
		psum[k] = make([]int64, c.PsumDepth)
	}
	dr.Reset(2)
	tasks := []neTask{
		{src: 0, aux: 0, dst: 0, h: 8, w: 1, ct: 1, kh: 1, kw: 1, stride: 1, oh: 8, ow: 1},                    // GEMM M=8, one pass
		{src: 10, aux: 4, dst: 8, h: 20, w: 1, ct: 3, kh: 1, kw: 1, stride: 1, oh: 20, ow: 1},                 // GEMM, K tiles
		{src: 30, aux: 8, dst: 30, h: 5, w: 5, ct: 1, kh: 3, kw: 3, stride: 1, padH: 0, oh: 3, ow: 3},         // 3×3 valid conv
		{src: 60, aux: 2, dst: 0, h: 5, w: 6, ct: 2, kh: 3, kw: 3, stride: 1, padH: 1, padW: 1, oh: 5, ow: 6}, // padded, 2 channel tiles
		{src: 0, aux: 1, dst: 40, h: 7, w: 7, ct: 1, kh: 3, kw: 2, stride: 2, padH: 1, padW: 0, oh: 4, ow: 3}, // stride 2
		{src: 5, aux: 3, dst: 0, h: 8, w: 1, ct: 1, kh: 1, kw: 1, stride: 1, oh: 8, ow: 1, acc: true},         // accumulate onto the first
		{src: 9, aux: 5, dst: 50, h: 2, w: 1, ct: 4, kh: 1, kw: 1, stride: 1, oh: 2, ow: 1},                   // passes shorter than a weight load
		{src: 3, aux: 0, dst: 60, h: 1, w: 1, ct: 3, kh: 1, kw: 1, stride: 1, oh: 1, ow: 1},                   // one pixel per pass
		{src: 100, dst: 20, h: 4, w: 4, transpose: true},
		{src: 200, dst: 33, h: 3, w: 2, transpose: true},
		{src: 0, aux: 0, dst: 0, h: 8, w: 1, ct: 0, kh: 1, kw: 1, stride: 1, oh: 8, ow: 1}, // no passes: done, nothing written
	}
	readPsum := func() [][]int64 {
		got := make([][]int64, c.Cols)
		for k := range got {
			got[k] = make([]int64, c.PsumDepth)
			for e := range got[k] {
				v := dr.MemRead(fmt.Sprintf("pb.lane_%d.ram", k), e)
				got[k][e] = int64(int32(v.Int64()))
			}
		}
		return got
	}
	present := func(tk neTask) {
		op := uint64(neConv)
		if tk.transpose {
			op = neTranspose
		}
		poke := map[string]uint64{"t_valid": 1, "t_op": op, "t_acc": 0, "t_src": uint64(tk.src), "t_aux": uint64(tk.aux), "t_dst": uint64(tk.dst),
			"t_d0": uint64(tk.h), "t_d1": uint64(tk.w), "t_d2": uint64(tk.ct), "t_kh": uint64(tk.kh), "t_kw": uint64(tk.kw),
			"t_stride": uint64(tk.stride), "t_pad_h": uint64(tk.padH), "t_pad_w": uint64(tk.padW), "t_oh": uint64(tk.oh), "t_ow": uint64(tk.ow)}
		if tk.acc {
			poke["t_acc"] = 1
		}
		dr.PokeAll(poke)
	}
	// One at a time: each task's psum image after its done pulse.
	total := 0
	for i, tk := range tasks {
		neGolden(c, state, weights, psum, tk)
		present(tk)
		start := dr.Sim.Cycle()
		for {
			r := dr.Peek("t_ready")
			dr.Step(1)
			if r == 1 {
				break
			}
		}
		dr.Poke("t_valid", 0)
		for n := 0; ; n++ {
			if dn := dr.Peek("done"); dn == 1 {
				break
			}
			if n > 5000 {
				t.Fatalf("task %d: no done", i)
			}
			dr.Step(1)
		}
		slots := tk.ct * tk.kh * tk.kw * tk.oh * tk.ow
		total += int(dr.Sim.Cycle() - start)
		t.Logf("task %d: %d slots, %d cycles", i, slots, dr.Sim.Cycle()-start)
		dr.Step(1)
		if diff := cmp.Diff(psum, readPsum()); diff != "" {
			t.Fatalf("task %d %+v: psum (-want +got):\n%s", i, tk, diff)
		}
	}
	// Back to back: every task presented as soon as the last is taken;
	// one done pulse per task, the final image as if run in order, and
	// the overlap saves cycles.
	for _, tk := range tasks {
		neGolden(c, state, weights, psum, tk)
	}
	start, next, dones := dr.Sim.Cycle(), 0, 0
	present(tasks[0])
	for n := 0; dones < len(tasks); n++ {
		if n > 20000 {
			t.Fatalf("back to back: %d of %d done pulses", dones, len(tasks))
		}
		r := dr.Peek("t_ready")
		dn := dr.Peek("done")
		dones += int(dn)
		dr.Step(1)
		if r == 1 && next < len(tasks) {
			if next++; next < len(tasks) {
				present(tasks[next])
			} else {
				dr.Poke("t_valid", 0)
			}
		}
	}
	b2b := int(dr.Sim.Cycle() - start)
	t.Logf("back to back: %d cycles, one at a time: %d", b2b, total)
	if b2b >= total {
		t.Errorf("back to back took %d cycles, not fewer than one at a time (%d)", b2b, total)
	}
	for range 100 {
		if dn := dr.Peek("done"); dn == 1 {
			t.Fatal("a done pulse after every task was done")
		}
		dr.Step(1)
	}
	if diff := cmp.Diff(psum, readPsum()); diff != "" {
		t.Fatalf("back to back: psum (-want +got):\n%s", diff)
	}
	// Random gaps between tasks: a task arrives in every cycle of its
	// predecessor's drain in some run (the cycle its last vector leaves
	// included); each task's done must come, once, in order.
	for seed := range uint64(40) {
		gr := rand.New(rand.NewPCG(seed, 99))
		for _, tk := range tasks {
			neGolden(c, state, weights, psum, tk)
		}
		next, dones, gap := 0, 0, 0
		present(tasks[0])
		for n := 0; dones < len(tasks); n++ {
			if n > 20000 {
				t.Fatalf("seed %d: %d of %d done pulses", seed, dones, len(tasks))
			}
			r := dr.Peek("t_ready")
			v := dr.Peek("t_valid")
			dn := dr.Peek("done")
			dones += int(dn)
			dr.Step(1)
			switch {
			case r == 1 && v == 1:
				next++
				gap = gr.IntN(2 * (c.Rows + c.Cols + 4))
				dr.Poke("t_valid", 0)
			case v == 0 && next < len(tasks) && gap == 0:
				present(tasks[next])
			case gap > 0:
				gap--
			}
		}
		for range 60 {
			if dn := dr.Peek("done"); dn == 1 {
				t.Fatalf("seed %d: a done pulse after every task was done", seed)
			}
			dr.Step(1)
		}
		if diff := cmp.Diff(psum, readPsum()); diff != "" {
			t.Fatalf("seed %d: psum (-want +got):\n%s", seed, diff)
		}
	}
	if o := dr.Peek("overrun"); o != 0 {
		t.Error("psum write refused")
	}
}
