package npu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/isa"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verify/simtest"
)

// The golden models on hand-worked tasks: strides, wrap-around on both
// sides, empty tasks and nops.
func TestDMAGolden(t *testing.T) {
	c := dmaSmallConfig() // 64 external lines, 32 state addresses, 16 weight rows, 4×4
	ext := make([][]uint64, 1<<c.ExtAddrWidth)
	for i := range ext {
		ext[i] = []uint64{uint64(i), uint64(i + 1), uint64(i + 2), uint64(i + 3)}
	}
	state := make([][]uint64, c.StateDepth)
	for i := range state {
		state[i] = []uint64{uint64(100 + i), 0, 0, uint64(i)}
	}
	line := func(x int) []uint64 { return ext[x] }
	tests := []struct {
		name       string
		in         bool
		task       dmaTaskSpec
		reads      []int
		writeAddrs []int
		weights    bool
	}{
		{"load 2 rows of 2, stride 3, wrapping external memory", true, dmaTaskSpec{Op: isa.DMAInLoad, Src: 62, Dst: 30, D0: 2, D1: 2, D2: 3},
			[]int{62, 63, 1, 2}, []int{30, 31, 0, 1}, false},
		{"load_weights, stride 0 (rows re-read)", true, dmaTaskSpec{Op: isa.DMAInLoadWeights, Src: 5, Dst: 14, D0: 2, D1: 2, D2: 0},
			[]int{5, 6, 5, 6}, []int{14, 15, 0, 1}, true},
		{"load with a 16-bit stride (wraps mod 2^6)", true, dmaTaskSpec{Op: isa.DMAInLoad, Src: 0, Dst: 0, D0: 1, D1: 3, D2: 65},
			[]int{0, 1, 2}, []int{0, 1, 2}, false},
		{"nop", true, dmaTaskSpec{Op: isa.DMAInNop, Src: 1, D0: 3, D1: 3}, nil, nil, false},
		{"op 3 is a nop", true, dmaTaskSpec{Op: isa.Op(3), Src: 1, D0: 3, D1: 3}, nil, nil, false},
		{"d0 = 0", true, dmaTaskSpec{Op: isa.DMAInLoad, D0: 0, D1: 3}, nil, nil, false},
		{"store 3 rows of 1, stride 10, wrapping the state buffer", false, dmaTaskSpec{Op: isa.DMAOutStore, Src: 31, Dst: 60, D0: 1, D1: 3, D2: 2},
			[]int{31, 0, 1}, []int{60, 62, 0}, false},
		{"store, d1 = 0", false, dmaTaskSpec{Op: isa.DMAOutStore, D0: 4, D1: 0}, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reads []int
			var writes, want []dmaMove
			if tt.in {
				reads, writes = goldenDMAIn(c, tt.task, ext)
				for i, a := range tt.writeAddrs {
					d := line(tt.reads[i])
					want = append(want, dmaMove{Weights: tt.weights, Addr: a, Data: d[:c.Cols]})
				}
			} else {
				reads, writes = goldenDMAOut(c, tt.task, state)
				for i, a := range tt.writeAddrs {
					want = append(want, dmaMove{Addr: a, Data: state[tt.reads[i]]})
				}
			}
			if diff := cmp.Diff(tt.reads, reads); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
		})
	}
}

// Random tasks on the Go simulator, with and without back-pressure on
// every ready and with random external latencies, on the small and the
// wide configurations.
func TestDMAInRandom(t *testing.T) {
	n := 120
	if testing.Short() {
		n = 40
	}
	for _, cc := range []struct {
		name string
		c    Config
	}{{"small", dmaSmallConfig()}, {"wide", dmaWideConfig()}} {
		c := cc.c
		L := c.ExtLatency
		for i, o := range []struct {
			name string
			o    dmaBenchOpts
		}{
			{"free", dmaBenchOpts{ready: 1, minLat: L, maxLat: L}},
			{"back-pressure", dmaBenchOpts{ready: 0.5, minLat: 1, maxLat: L + 3, gap: 0.3}},
			{"slow memory", dmaBenchOpts{ready: 0.8, minLat: L, maxLat: L + 12, gap: 0.1}},
			{"heavy back-pressure", dmaBenchOpts{ready: 0.2, minLat: 1, maxLat: 2}},
		} {
			t.Run(cc.name+"/"+o.name, func(t *testing.T) {
				seed := uint64(100 + i)
				r := rand.New(rand.NewPCG(seed, 1))
				tasks := dmaRandomTasks(r, c, n, c.ExtAddrWidth, max(log2(c.StateDepth), log2(c.WeightDepth)), []int{1, 5, 4, 1})
				stats := runDMAIn(t, simtest.NewModule(t, dmaIn(c)), c, seed, tasks, o.o)
				stalls := 0
				for _, s := range stats {
					stalls += s.Stalls
				}
				if (o.o.ready < 1) != (stalls > 0) {
					t.Errorf("%d stall cycles with ready probability %v", stalls, o.o.ready)
				}
			})
		}
	}
}

func TestDMAOutRandom(t *testing.T) {
	n := 120
	if testing.Short() {
		n = 40
	}
	for _, cc := range []struct {
		name string
		c    Config
	}{{"small", dmaSmallConfig()}, {"wide", dmaWideConfig()}} {
		c := cc.c
		for i, o := range []struct {
			name string
			o    dmaBenchOpts
		}{
			{"free", dmaBenchOpts{ready: 1}},
			{"back-pressure", dmaBenchOpts{ready: 0.5, gap: 0.3}},
			{"heavy back-pressure", dmaBenchOpts{ready: 0.2}},
		} {
			t.Run(cc.name+"/"+o.name, func(t *testing.T) {
				seed := uint64(200 + i)
				r := rand.New(rand.NewPCG(seed, 1))
				tasks := dmaRandomTasks(r, c, n, log2(c.StateDepth), c.ExtAddrWidth, []int{1, 8})
				stats := runDMAOut(t, simtest.NewModule(t, dmaOut(c)), c, seed, tasks, o.o)
				stalls := 0
				for _, s := range stats {
					stalls += s.Stalls
				}
				if (o.o.ready < 1) != (stalls > 0) {
					t.Errorf("%d stall cycles with ready probability %v", stalls, o.o.ready)
				}
			})
		}
	}
}

// dmaTimingTasks are offered back to back (t_valid high from the start,
// each task the moment the previous one is done).
var dmaTimingTasks = []dmaTaskSpec{
	{Op: isa.DMAInLoad, Src: 3, Dst: 0, D0: 1, D1: 1, D2: 1},
	{Op: isa.DMAInLoad, Src: 30, Dst: 28, D0: 8, D1: 1, D2: 0},         // wraps the state buffer
	{Op: isa.DMAInLoad, Src: 10, Dst: 5, D0: 5, D1: 3, D2: 7},          // strided rows
	{Op: isa.DMAInLoadWeights, Src: 0, Dst: 12, D0: 2, D1: 8, D2: 200}, // weights, 16-bit stride
	{Op: isa.DMAInNop, Src: 0, Dst: 0, D0: 9, D1: 9, D2: 9},            // nop
	{Op: isa.DMAInLoad, Src: 0, Dst: 0, D0: 0, D1: 5, D2: 9},           // empty
	{Op: isa.DMAInLoad, Src: 1, Dst: 2, D0: 40, D1: 1, D2: 0},          // longer than the state buffer
}

// dmaOutTimingTasks are dmaTimingTasks for dma_out, whose op port holds
// only nop and store: every transfer is a store.
func dmaOutTimingTasks() []dmaTaskSpec {
	out := append([]dmaTaskSpec(nil), dmaTimingTasks...)
	for i := range out {
		if out[i].Op != isa.DMAInNop {
			out[i].Op = isa.DMAOutStore
		}
	}
	return out
}

// dmaWantTiming is the timing the engines promise without back-pressure:
// a request every cycle from the cycle after acceptance, done `tail`
// cycles after the last request (1 cycle after acceptance for an empty
// task), and the next task accepted in the done cycle.
func dmaWantTiming(tasks []dmaTaskSpec, moves func(dmaTaskSpec) bool, tail int) []dmaTaskStats {
	var want []dmaTaskStats
	cyc := 0 // cycles count from the end of reset
	for _, t := range tasks {
		s := dmaTaskStats{Accept: cyc, FirstReq: -1, LastReq: -1}
		if n := t.D0 * t.D1; moves(t) && n > 0 {
			s.FirstReq, s.LastReq, s.Reqs, s.Done = cyc+1, cyc+n, n, cyc+n+tail
		} else {
			s.Done = cyc + 1
		}
		want = append(want, s)
		cyc = s.Done
	}
	return want
}

// One line per cycle without back-pressure, exact cycle counts, no stall;
// dma_in at the configured latency and at the extremes (1 and 16).
func TestDMAInTiming(t *testing.T) {
	for _, lat := range []int{1, 3, 16} {
		c := dmaSmallConfig()
		c.ExtLatency = lat
		t.Run(fmt.Sprintf("latency %d", lat), func(t *testing.T) {
			got := runDMAIn(t, simtest.NewModule(t, dmaIn(c)), c, 7, dmaTimingTasks, dmaBenchOpts{ready: 1, minLat: lat, maxLat: lat})
			want := dmaWantTiming(dmaTimingTasks, func(t dmaTaskSpec) bool { return t.Op == isa.DMAInLoad || t.Op == isa.DMAInLoadWeights }, lat+2)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("timing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDMAOutTiming(t *testing.T) {
	c := dmaSmallConfig()
	tasks := dmaOutTimingTasks()
	got := runDMAOut(t, simtest.NewModule(t, dmaOut(c)), c, 8, tasks, dmaBenchOpts{ready: 1})
	want := dmaWantTiming(tasks, func(t dmaTaskSpec) bool { return t.Op == isa.DMAOutStore }, 3)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timing (-want +got):\n%s", diff)
	}
}

// A short run of each engine with back-pressure, random latencies and
// every kind of task, replayed on Verilator.
func TestDMACrossCheck(t *testing.T) {
	tooltest.Need(t, "verilator")
	c := dmaSmallConfig()
	o := dmaBenchOpts{ready: 0.6, minLat: 1, maxLat: c.ExtLatency + 4, gap: 0.2}
	t.Run("dma_in", func(t *testing.T) {
		r := rand.New(rand.NewPCG(300, 1))
		tasks := append(dmaRandomTasks(r, c, 14, c.ExtAddrWidth, log2(c.StateDepth), []int{1, 5, 4, 1}), dmaTimingTasks[:4]...)
		dr := simtest.NewModule(t, dmaIn(c))
		runDMAIn(t, dr, c, 300, tasks, o)
		dr.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
	})
	t.Run("dma_out", func(t *testing.T) {
		r := rand.New(rand.NewPCG(301, 1))
		tasks := append(dmaRandomTasks(r, c, 14, log2(c.StateDepth), c.ExtAddrWidth, []int{1, 8}), dmaOutTimingTasks()[:4]...)
		dr := simtest.NewModule(t, dmaOut(c))
		runDMAOut(t, dr, c, 301, tasks, o)
		dr.CrossCheck(verify.Options{Dir: t.TempDir(), CompareMemories: true})
	})
}
