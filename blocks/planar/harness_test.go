package planar

import (
	"fmt"
	"github.com/hwgen/hwgen/isa/machine"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hwgen/hwgen/blocks/sram"
	"github.com/hwgen/hwgen/hdl"
	isaplanar "github.com/hwgen/hwgen/isa/planar"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verify/simtest"
)

// smallConfig is the unit-test engine: 4 lanes over a 3-partition psum
// buffer (so lane 3 has no psum partition), shallow buffers, 8×8 windows.
func smallConfig() Config {
	return Config{Sizes: isaplanar.Sizes{Lanes: 4, PsumLanes: 3, ElemWidth: 8, ElemSigned: true, AccWidth: 20, ScaleWidth: 10,
		StateDepth: 256, PsumDepth: 64, MaxKernel: 8, LineDepth: 16}}
}

// Other clients of the buffers, driven by the bench to make the engine
// wait (contention) and to show that it never disturbs them.
var (
	stateReaders = []string{"pe", "wl", "dmar"}
	stateWriters = []string{"dmaw"}
)

// testTop wires the engine to a real state buffer and psum buffer of
// blocks/sram, with every other client of the buffers a top-level port.
func testTop(c Config) *hdl.Module {
	top := hdl.NewModule(hdl.Name("planar_tb", Name(c)))
	pl := top.Instance("pl", build(c))
	sbm, err := sram.StateBuffer(sram.StateConfig{Partitions: c.Lanes, Depth: c.StateDepth, ElemWidth: c.ElemWidth, PlanarReadPort: c.Src2Port}, false)
	if err != nil {
		panic(err)
	}
	pbm, err := sram.PsumBuffer(sram.PsumConfig{Partitions: c.PsumLanes, Depth: c.PsumDepth, AccWidth: c.AccWidth}, false)
	if err != nil {
		panic(err)
	}
	sb := top.Instance("sb", sbm)
	pb := top.Instance("pb", pbm)
	aw, pw := c.AddrWidth(), c.PsumAddrWidth()

	for _, f := range c.Fields() {
		pl.Connect("t_"+f.Name, top.Input("t_"+f.Name, fieldType(f)))
	}
	pl.Connect("t_valid", top.Input("t_valid", hdl.Bool))
	for _, o := range []string{"t_ready", "busy", "done", "error"} {
		top.Output(o, hdl.Bool).Set(pl.Out(o))
	}
	top.Output("err_code", hdl.UInt(isaplanar.ErrCodeWidth)).Set(pl.Out("err_code"))

	// planar <-> state buffer (plr, plw) and psum buffer (rd)
	sb.Connect("plr_valid", pl.Out("plr_valid")).Connect("plr_addr", pl.Out("plr_addr")).Connect("plr_mask", pl.Out("plr_mask"))
	pl.Connect("plr_ready", sb.Out("plr_ready")).Connect("plr_rvalid", sb.Out("plr_rvalid"))
	sb.Connect("plw_valid", pl.Out("plw_valid")).Connect("plw_addr", pl.Out("plw_addr")).Connect("plw_mask", pl.Out("plw_mask"))
	pl.Connect("plw_ready", sb.Out("plw_ready"))
	for p := range c.Lanes {
		pl.Connect(fmt.Sprintf("plr_rdata_%d", p), sb.Out(fmt.Sprintf("plr_rdata_%d", p)))
		sb.Connect(fmt.Sprintf("plw_wdata_%d", p), pl.Out(fmt.Sprintf("plw_wdata_%d", p)))
	}
	if c.Src2Port { // the engine's own port: its ready and rvalid are implied
		sb.Connect("plr2_valid", pl.Out("plr2_valid")).Connect("plr2_addr", pl.Out("plr2_addr")).Connect("plr2_mask", pl.Out("plr2_mask"))
		for p := range c.Lanes {
			pl.Connect(fmt.Sprintf("plr2_rdata_%d", p), sb.Out(fmt.Sprintf("plr2_rdata_%d", p)))
		}
		// b's reads that count: those with a's accepted (a waiting
		// repeats b's); never a read of b without one of a.
		top.Output("plr2_go", hdl.Bool).Set(pl.Out("plr2_valid").And(sb.Out("plr2_ready")).And(sb.Out("plr_ready")))
		top.Output("plr2_alone", hdl.Bool).Set(pl.Out("plr2_valid").And(pl.Out("plr_valid").Not()))
		top.Output("eng_plr2_addr", pl.Out("plr2_addr").Type).Set(pl.Out("plr2_addr"))
	}
	pb.Connect("rd_valid", pl.Out("rd_valid")).Connect("rd_addr", pl.Out("rd_addr")).Connect("rd_mask", pl.Out("rd_mask"))
	pl.Connect("rd_ready", pb.Out("rd_ready")).Connect("rd_rvalid", pb.Out("rd_rvalid"))
	for p := range c.PsumLanes {
		pl.Connect(fmt.Sprintf("rd_data_%d", p), pb.Out(fmt.Sprintf("rd_data_%d", p)))
	}
	// Handshakes that took place, for counting accesses.
	top.Output("plr_go", hdl.Bool).Set(pl.Out("plr_valid").And(sb.Out("plr_ready")))
	top.Output("plw_go", hdl.Bool).Set(pl.Out("plw_valid").And(sb.Out("plw_ready")))
	top.Output("rd_go", hdl.Bool).Set(pl.Out("rd_valid").And(pb.Out("rd_ready")))

	// Engine-side request ports, so the cross-check compares them every
	// cycle, not only the memories at the end.
	for _, o := range []string{"plr_valid", "plr_addr", "plw_valid", "plw_addr", "plw_mask", "rd_valid", "rd_addr"} {
		top.Output("eng_"+o, pl.Out(o).Type).Set(pl.Out(o))
	}
	for p := range c.Lanes {
		o := fmt.Sprintf("plw_wdata_%d", p)
		top.Output("eng_"+o, hdl.UInt(c.ElemWidth)).Set(pl.Out(o))
	}

	// the other clients
	for _, name := range append(append([]string{}, stateReaders...), stateWriters...) {
		sb.Connect(name+"_valid", top.Input(name+"_valid", hdl.Bool)).
			Connect(name+"_addr", top.Input(name+"_addr", hdl.UInt(aw))).
			Connect(name+"_mask", top.Input(name+"_mask", hdl.UInt(c.Lanes)))
		top.Output(name+"_ready", hdl.Bool).Set(sb.Out(name + "_ready"))
	}
	for p := range c.Lanes {
		sb.Connect(fmt.Sprintf("dmaw_wdata_%d", p), top.Input(fmt.Sprintf("dmaw_wdata_%d", p), hdl.UInt(c.ElemWidth)))
	}
	pb.Connect("wr_valid", top.Input("wr_valid", hdl.Bool)).Connect("wr_addr", top.Input("wr_addr", hdl.UInt(pw))).
		Connect("wr_acc", top.Input("wr_acc", hdl.Bool)).Connect("wr_mask", top.Input("wr_mask", hdl.UInt(c.PsumLanes)))
	for p := range c.PsumLanes {
		pb.Connect(fmt.Sprintf("wr_data_%d", p), top.Input(fmt.Sprintf("wr_data_%d", p), hdl.SInt(c.AccWidth)))
	}
	pb.Connect("clr_valid", top.Input("clr_valid", hdl.Bool)).Connect("clr_base", top.Input("clr_base", hdl.UInt(pw))).
		Connect("clr_count", top.Input("clr_count", hdl.UInt(pw+1)))
	top.Output("wr_ready", hdl.Bool).Set(pb.Out("wr_ready"))
	top.Output("clr_ready", hdl.Bool).Set(pb.Out("clr_ready"))
	return top
}

// bench drives the test top closed loop on the Go simulator (recorded
// for a Verilator replay) and keeps a mirror of both buffers, updated
// from the golden models after every task.
type bench struct {
	t   *testing.T
	cfg Config
	dr  *simtest.Driver
	r   *rand.Rand

	state [][]int64 // [lane][addr] element values
	psum  [][]int64 // [partition][entry]
	// per-lane parameters loaded by loadparams (zero after reset)
	lscale, lbias []int64
	table         []int64 // the lookup table loaded by loadtable (nil: none yet)

	// contention: probability that an idle other client starts a request
	busyRate float64
	pend     map[string]bool
	driven   bool
	cyc      int
	// scratch regions the other clients write (never used by tasks)
	stateScratch, psumScratch int
}

// taskRun is what one task did.
type taskRun struct {
	cycles            int // accept to done pulse
	reads, writes     int // accepted vector reads (plr or rd) and writes (plw)
	errCode           isaplanar.ErrCode
	acceptAt, doneAt  int
	psumReads, plrRds int // reads by port
}

var designCache = map[Config]*hdl.Design{}

func newBench(t *testing.T, cfg Config, seed uint64, busyRate float64) *bench {
	t.Helper()
	return newBenchWith(t, cfg, seed, busyRate, nil)
}

// newBenchWith is newBench with the initial buffer contents (random)
// adjusted by init before they are loaded.
func newBenchWith(t *testing.T, cfg Config, seed uint64, busyRate float64, init func(state, psum [][]int64)) *bench {
	t.Helper()
	d, ok := designCache[cfg]
	if !ok {
		d = simtest.Elaborate(t, testTop(cfg))
		designCache[cfg] = d
	}
	b := &bench{t: t, cfg: cfg, dr: simtest.New(t, d), r: rand.New(rand.NewPCG(seed, 99)), busyRate: busyRate,
		pend: map[string]bool{}, stateScratch: cfg.StateDepth - 16, psumScratch: cfg.PsumDepth - 8,
		lscale: make([]int64, cfg.Lanes), lbias: make([]int64, cfg.Lanes)}
	et := cfg.ElemType()
	b.state = make([][]int64, cfg.Lanes)
	for p := range b.state {
		b.state[p] = make([]int64, cfg.StateDepth)
		for a := range b.state[p] {
			b.state[p][a] = b.r.Int64N(maxOf(et)-minOf(et)+1) + minOf(et)
		}
	}
	b.psum = make([][]int64, cfg.PsumLanes)
	for p := range b.psum {
		b.psum[p] = make([]int64, cfg.PsumDepth)
		for a := range b.psum[p] {
			// Mostly values near the element range (so requantized
			// results vary), some anywhere in the accumulator range.
			v := b.r.Int64N(1024) - 512
			if b.r.IntN(4) == 0 {
				v = b.r.Int64N(1<<uint(cfg.AccWidth)) - 1<<uint(cfg.AccWidth-1)
			}
			b.psum[p][a] = v
		}
	}
	if init != nil {
		init(b.state, b.psum)
	}
	for p := range b.state {
		for a, v := range b.state[p] {
			b.preload(fmt.Sprintf("sb.bank_%d.ram", p), a, v, cfg.ElemWidth)
		}
	}
	for p := range b.psum {
		for a, v := range b.psum[p] {
			b.preload(fmt.Sprintf("pb.lane_%d.ram", p), a, v, cfg.AccWidth)
		}
	}
	b.dr.Poke("rst", 1)
	b.step()
	b.step()
	b.dr.Poke("rst", 0)
	b.step()
	return b
}

func (b *bench) preload(path string, addr int, v int64, width int) {
	b.t.Helper()
	b.dr.Preload(path, addr, new(big.Int).SetUint64(uint64(v)&(1<<uint(width)-1)))
}

// drive sets this cycle's requests of the other clients (once per
// cycle); peeks of anything that depends on arbitration come after it.
func (b *bench) drive() {
	if b.driven {
		return
	}
	b.driven = true
	if b.busyRate > 0 {
		b.contend()
	}
}

// step drives the other clients for this cycle and clocks once; a
// request accepted at this edge is dropped after it.
func (b *bench) step() {
	b.drive()
	var accepted []string
	for _, name := range []string{"pe", "wl", "dmar", "dmaw", "wr", "clr"} {
		if b.pend[name] && b.dr.Peek(name+"_ready") == 1 {
			accepted = append(accepted, name)
		}
	}
	b.dr.Step(1)
	b.cyc++
	b.driven = false
	for _, name := range accepted {
		b.pend[name] = false
		b.dr.Poke(name+"_valid", 0)
	}
}

// contend keeps random requests of the other clients going, each held
// until its ready (the buffers' rule). Writers only touch the scratch
// regions, so the mirror stays exact.
func (b *bench) contend() {
	c := b.cfg
	full := uint64(1)<<uint(c.Lanes) - 1
	start := func(name string) bool {
		if b.pend[name] {
			return true
		}
		if b.r.Float64() >= b.busyRate {
			b.dr.Poke(name+"_valid", 0)
			return false
		}
		b.pend[name] = true
		return true
	}
	for _, name := range stateReaders {
		if !b.pend[name] && start(name) {
			b.dr.Poke(name+"_valid", 1)
			b.dr.Poke(name+"_addr", uint64(b.r.IntN(c.StateDepth)))
			b.dr.Poke(name+"_mask", b.r.Uint64()&full|1<<uint(b.r.IntN(c.Lanes)))
		}
	}
	if !b.pend["dmaw"] && start("dmaw") {
		b.dr.Poke("dmaw_valid", 1)
		b.dr.Poke("dmaw_addr", uint64(b.stateScratch+b.r.IntN(c.StateDepth-b.stateScratch)))
		b.dr.Poke("dmaw_mask", b.r.Uint64()&full|1)
		for p := range c.Lanes {
			b.dr.Poke(fmt.Sprintf("dmaw_wdata_%d", p), b.r.Uint64()&(1<<uint(c.ElemWidth)-1))
		}
	}
	pfull := uint64(1)<<uint(c.PsumLanes) - 1
	if !b.pend["wr"] && start("wr") {
		b.dr.Poke("wr_valid", 1)
		b.dr.Poke("wr_addr", uint64(b.psumScratch+b.r.IntN(c.PsumDepth-b.psumScratch)))
		b.dr.Poke("wr_acc", uint64(b.r.IntN(2)))
		b.dr.Poke("wr_mask", b.r.Uint64()&pfull|1)
		for p := range c.PsumLanes {
			b.dr.PokeInt(fmt.Sprintf("wr_data_%d", p), b.r.Int64N(2000)-1000)
		}
	}
	if !b.pend["clr"] && b.r.IntN(16) == 0 && start("clr") {
		base := b.psumScratch + b.r.IntN(c.PsumDepth-b.psumScratch)
		b.dr.Poke("clr_valid", 1)
		b.dr.Poke("clr_base", uint64(base))
		b.dr.Poke("clr_count", uint64(1+b.r.IntN(c.PsumDepth-base)))
	}
}

// quiesce lets the other clients finish their requests and stop.
func (b *bench) quiesce() {
	rate := b.busyRate
	b.busyRate = 1e-9
	for i := 0; i < 64; i++ {
		b.step()
	}
	b.busyRate = rate
}

// run hands t (encoded without the compiler-side checks) to the engine
// and clocks until its done pulse.
func (b *bench) run(t isaplanar.Task) taskRun {
	b.t.Helper()
	fields, err := t.EncodeRaw(b.cfg.Sizes)
	if err != nil {
		b.t.Fatalf("encode %+v: %v", t, err)
	}
	return b.runFields(t, fields)
}

// runFields is run with the descriptor given field by field (t only
// bounds the wait).
func (b *bench) runFields(t isaplanar.Task, fields []isaplanar.Field) taskRun {
	b.t.Helper()
	for _, f := range fields {
		b.dr.Poke("t_"+f.Name, f.Value)
	}
	b.dr.Poke("t_valid", 1)
	var res taskRun
	for {
		if b.cyc > 1<<22 {
			b.t.Fatal("runaway")
		}
		ready := b.dr.Peek("t_ready") == 1
		if ready {
			res.acceptAt = b.cyc
			b.step()
			break
		}
		b.step()
	}
	b.dr.Poke("t_valid", 0)
	limit := b.cyc + b.cfg.Passes()*(64+40*(t.Reads(b.cfg.Sizes)+t.Writes()+expectSteps(t)))
	for {
		b.drive()
		if b.dr.Peek("plr_go") == 1 {
			res.reads++
			res.plrRds++
		}
		if b.cfg.Src2Port && b.dr.Peek("plr2_go") == 1 {
			res.reads++
			res.plrRds++
		}
		if b.cfg.Src2Port && b.dr.Peek("plr2_alone") == 1 {
			b.t.Errorf("task %+v: a read on plr2 without one on plr", t)
		}
		if b.dr.Peek("rd_go") == 1 {
			res.reads++
			res.psumReads++
		}
		if b.dr.Peek("plw_go") == 1 {
			res.writes++
		}
		if b.dr.Peek("done") == 1 {
			res.doneAt = b.cyc
			res.errCode = isaplanar.ErrCode(b.dr.Peek("err_code"))
			if (b.dr.Peek("error") == 1) != (res.errCode != isaplanar.ErrNone) {
				b.t.Errorf("error = %d with err_code %d", b.dr.Peek("error"), res.errCode)
			}
			b.step()
			break
		}
		if b.cyc > limit {
			b.t.Fatalf("task %+v: no done pulse after %d cycles (hang)", t, b.cyc-res.acceptAt)
		}
		b.step()
	}
	res.cycles = res.doneAt - res.acceptAt
	return res
}

// expectSteps bounds the plane walker's steps, for the hang limit.
func expectSteps(t isaplanar.Task) int {
	if t.Op != isaplanar.OpPool {
		return 0
	}
	return (t.H + 8) * (t.W + 8)
}

// elemBits and elemVal convert between element values and their bits.
func (b *bench) elemVal(bits uint64) int64 {
	w := uint(b.cfg.ElemWidth)
	bits &= 1<<w - 1
	if b.cfg.ElemSigned && bits>>(w-1) == 1 {
		return int64(bits) - 1<<w
	}
	return int64(bits)
}

// checkMemory compares every state-buffer word outside the scratch
// region with the mirror.
func (b *bench) checkMemory(what string) {
	b.t.Helper()
	bad := 0
	for p := range b.state {
		for a := 0; a < b.stateScratch; a++ {
			v := b.dr.MemRead(fmt.Sprintf("sb.bank_%d.ram", p), a)
			if got := b.elemVal(v.Uint64()); got != b.state[p][a] {
				if bad < 8 {
					b.t.Errorf("%s: state partition %d address %d = %d, want %d", what, p, a, got, b.state[p][a])
				}
				bad++
			}
		}
	}
	if bad > 0 {
		b.t.Fatalf("%s: %d state-buffer words differ from the golden model", what, bad)
	}
}

// requant is the task's post-processor as the golden model spells it.
// expect applies t to the mirror with the task-level model.
func (b *bench) expect(t isaplanar.Task) {
	b.t.Helper()
	m := &machine.PlanarMemories{State: b.state, Psum: b.psum, Scale: b.lscale, Bias: b.lbias, Table: b.table}
	if err := machine.RunPlanar(b.cfg.Sizes, t, m); err != nil {
		b.t.Fatalf("model of %+v: %v", t, err)
	}
	b.table = m.Table
}

// crossCheck replays the recorded run on Verilator: every output every
// cycle, every memory word at the end.
func (b *bench) crossCheck() {
	b.t.Helper()
	b.dr.CrossCheck(verify.Options{Dir: b.t.TempDir(), CompareMemories: true})
}
