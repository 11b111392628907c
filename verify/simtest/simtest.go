// Package simtest is the client side of the blocks' harness tests: it
// drives a design on the Go simulator through its ports, with every
// failure a test failure, and records the run so that it replays on
// Verilator afterwards.
package simtest

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// Driver pokes, peeks and clocks one recorded simulation of a design.
type Driver struct {
	// Sim is the simulator, for what the driver does not wrap (its
	// cycle count, say); pokes through it bypass the recording.
	Sim *sim.Sim

	t       testing.TB
	d       *hdl.Design
	rec     *stim.Recorder
	memInit []verify.MemWord
}

// Elaborate elaborates m, failing t on an error.
func Elaborate(t testing.TB, m *hdl.Module) *hdl.Design {
	t.Helper()
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// New starts a recorded simulation of d.
func New(t testing.TB, d *hdl.Design) *Driver {
	t.Helper()
	rec, err := stim.NewRecorder(d)
	if err != nil {
		t.Fatal(err)
	}
	return &Driver{Sim: rec.Sim, t: t, d: d, rec: rec}
}

// NewModule elaborates m and starts a recorded simulation of it.
func NewModule(t testing.TB, m *hdl.Module) *Driver {
	t.Helper()
	return New(t, Elaborate(t, m))
}

// Design is the simulated design.
func (dr *Driver) Design() *hdl.Design { return dr.d }

// Reset holds rst high for cycles cycles and then drops it.
func (dr *Driver) Reset(cycles int) {
	dr.t.Helper()
	dr.Poke("rst", 1)
	dr.Step(cycles)
	dr.Poke("rst", 0)
}

// Poke sets an input from now on.
func (dr *Driver) Poke(port string, v uint64) {
	dr.t.Helper()
	if err := dr.rec.Poke(port, v); err != nil {
		dr.t.Fatal(err)
	}
}

// PokeBool sets a one-bit input.
func (dr *Driver) PokeBool(port string, b bool) {
	dr.t.Helper()
	var v uint64
	if b {
		v = 1
	}
	dr.Poke(port, v)
}

// PokeInt sets an input to v, two's complement at the port's width.
func (dr *Driver) PokeInt(port string, v int64) {
	dr.t.Helper()
	dr.PokeBig(port, big.NewInt(v))
}

// PokeBig sets an input of any width.
func (dr *Driver) PokeBig(port string, v *big.Int) {
	dr.t.Helper()
	if err := dr.rec.PokeBig(port, v); err != nil {
		dr.t.Fatal(err)
	}
}

// PokeAll sets several inputs.
func (dr *Driver) PokeAll(ports map[string]uint64) {
	dr.t.Helper()
	for p, v := range ports {
		dr.Poke(p, v)
	}
}

// Peek reads a signal (at most 64 bits) as its bit pattern.
func (dr *Driver) Peek(path string) uint64 {
	dr.t.Helper()
	v, err := dr.rec.Peek(path)
	if err != nil {
		dr.t.Fatal(err)
	}
	return v
}

// PeekBool reads a one-bit signal.
func (dr *Driver) PeekBool(path string) bool {
	dr.t.Helper()
	return dr.Peek(path) == 1
}

// PeekInt reads a signal as a number: sign-extended when its type is
// signed.
func (dr *Driver) PeekInt(path string) int64 {
	dr.t.Helper()
	v, err := dr.Sim.PeekSigned(path)
	if err != nil {
		dr.t.Fatal(err)
	}
	return v.Int64()
}

// PeekBig reads a signal of any width as its bit pattern.
func (dr *Driver) PeekBig(path string) *big.Int {
	dr.t.Helper()
	v, err := dr.Sim.PeekBig(path)
	if err != nil {
		dr.t.Fatal(err)
	}
	return v
}

// Step records this cycle's inputs and clocks n times.
func (dr *Driver) Step(n int) { dr.rec.Step(n) }

// Until clocks until done holds and returns the cycles it stepped;
// when done still does not hold after limit cycles, the test fails
// naming what it waited for.
func (dr *Driver) Until(what string, limit int, done func() bool) int {
	dr.t.Helper()
	n := 0
	for ; !done(); n++ {
		if n >= limit {
			dr.t.Fatalf("cycle %d: still waiting for %s after %d cycles", dr.Sim.Cycle(), what, limit)
		}
		dr.Step(1)
	}
	return n
}

// MemRead reads a memory word as its bit pattern.
func (dr *Driver) MemRead(path string, addr int) *big.Int {
	dr.t.Helper()
	v, err := dr.Sim.MemRead(path, addr)
	if err != nil {
		dr.t.Fatal(err)
	}
	return v
}

// Preload writes a memory word before the run, and has the cross-check
// preload it on Verilator too.
func (dr *Driver) Preload(path string, addr int, v *big.Int) {
	dr.t.Helper()
	if err := dr.Sim.MemWrite(path, addr, v); err != nil {
		dr.t.Fatal(err)
	}
	dr.memInit = append(dr.memInit, verify.MemWord{Path: path, Addr: addr, Value: v})
}

// Stimulus is every cycle's inputs so far.
func (dr *Driver) Stimulus() *stim.Stimulus { return dr.rec.Stimulus() }

// CrossCheck replays the run so far on Verilator (with the preloaded
// memory words) and fails the test on the first difference; it skips
// the test when Verilator is missing, or fails it under RequireEnv.
func (dr *Driver) CrossCheck(opt verify.Options) *verify.Result {
	dr.t.Helper()
	tooltest.Need(dr.t, "verilator")
	opt.MemInit = append(slices.Clip(dr.memInit), opt.MemInit...)
	res, err := verify.CrossCheck(dr.d, dr.rec.Stimulus(), opt)
	if err != nil {
		dr.t.Fatal(fmt.Errorf("cross-check of %s: %w", dr.d.Top.Name, err))
	}
	dr.t.Logf("verilator agrees on %d outputs for %d cycles (build cached %v, %v)", res.Outputs, res.Cycles, res.Cached, res.BuildTime.Round(time.Millisecond))
	return res
}
