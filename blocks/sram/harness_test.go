package sram

import (
	"math/big"
	"testing"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/verify"
)

// resetCycles is how long every run holds rst high at the start.
const resetCycles = 2

// driver wraps a Recorder with test-fatal pokes and peeks.
type driver struct {
	t   *testing.T
	rec *verify.Recorder
}

func newDriver(t *testing.T, d *hdl.Design) *driver {
	t.Helper()
	rec, err := verify.NewRecorder(d)
	if err != nil {
		t.Fatal(err)
	}
	return &driver{t: t, rec: rec}
}

func (dr *driver) poke(port string, v uint64) {
	dr.t.Helper()
	if err := dr.rec.Poke(port, v); err != nil {
		dr.t.Fatal(err)
	}
}

func (dr *driver) pokeBool(port string, b bool) {
	dr.t.Helper()
	dr.poke(port, b2u(b))
}

func (dr *driver) peek(port string) uint64 {
	dr.t.Helper()
	v, err := dr.rec.Peek(port)
	if err != nil {
		dr.t.Fatal(err)
	}
	return v
}

func (dr *driver) memRead(path string, addr int) uint64 {
	dr.t.Helper()
	v, err := dr.rec.Sim.MemRead(path, addr)
	if err != nil {
		dr.t.Fatal(err)
	}
	return new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64()
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// crossCheck replays a recorded run on Verilator, comparing every output
// every cycle and every memory word at the end.
func crossCheck(t *testing.T, d *hdl.Design, rec *verify.Recorder) {
	t.Helper()
	res, err := verify.CrossCheck(d, rec.Stimulus(), verify.Options{Dir: t.TempDir(), CompareMemories: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verilator agrees on %d outputs for %d cycles (build cached %v, %v)", res.Outputs, res.Cycles, res.Cached, res.BuildTime)
}
