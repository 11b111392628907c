package host

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verify"
)

// sessionNet is a conv, max pool and FC on input x with fixed weights.
func sessionNet(x *golden.Tensor) *compiler.Graph {
	rng := rand.New(rand.NewPCG(21, 22))
	g := compiler.NewGraph()
	y := g.Conv2D(g.Input("x", x), randTensor(rng, 4, 2, 3, 3), compiler.Conv{PadH: 1, PadW: 1,
		Requant: golden.Requant{Scale: 1, Shift: 7, Relu: true}})
	y = g.Pool2D(y, compiler.Pool{Kind: golden.PoolMax, KH: 2, KW: 2, Stride: 2})
	g.Output("y", g.GEMM(g.Flatten(y), randTensor(rng, 4*3*3, 5), golden.Requant{Scale: 1, Shift: 8}))
	return g
}

// TestSession runs one compiled program on several inputs in one
// simulated NPU: every run's output is the golden model's for its input,
// every run takes the same cycles, and the whole session replays on
// Verilator.
func TestSession(t *testing.T) {
	// Through the command port, and through descriptor rings of 2 that
	// wrap within and across runs (the ring pointers carry over), with
	// partial-output gating.
	for _, cfg := range []npu.Config{small(), ringsGated()} {
		t.Run(cfg.Name(), func(t *testing.T) { testSession(t, cfg) })
	}
}

func testSession(t *testing.T, cfg npu.Config) {
	rng := rand.New(rand.NewPCG(23, 24))
	xs := make([]*golden.Tensor, 4)
	for i := range xs {
		xs[i] = randTensor(rng, 2, 6, 6)
	}
	p, err := compiler.Compile(cfg, sessionNet(xs[0]))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cycles []int
	for i, x := range xs {
		want, err := sessionNet(x).Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]*golden.Tensor{"x": x}
		if i == 0 {
			in = nil // the image already holds input 0
		}
		res, err := s.Run(in)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if d := cmp.Diff(want["y"], res.Outputs["y"]); d != "" {
			t.Errorf("run %d (-golden +npu):\n%s", i, d)
		}
		if i > 0 && res.LoadCycles != p.Inputs[0].Lines {
			t.Errorf("run %d wrote %d lines, want the %d of input x only", i, res.LoadCycles, p.Inputs[0].Lines)
		}
		cycles = append(cycles, res.Cycles)
		written := 0
		for _, sp := range res.Timeline {
			written += sp.ExtWritten
		}
		if want := p.Outputs[0].Lines * cfg.Rows; written != want { // int8: a byte per element
			t.Errorf("run %d: the tasks write %d bytes of external memory, want the output's %d lines × %d", i, written, p.Outputs[0].Lines, cfg.Rows)
		}
	}
	if want := []int{cycles[0], cycles[0], cycles[0], cycles[0]}; !cmp.Equal(want, cycles) {
		t.Errorf("cycles per run %v, want the same every run", cycles)
	}
	if _, err := s.Run(map[string]*golden.Tensor{"nope": xs[0]}); err == nil {
		t.Error("a run with an unknown input name did not fail")
	}
	tooltest.Need(t, "verilator")
	d, err := Design(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := verify.CrossCheck(d, s.Stimulus(), verify.Options{Build: verify.BuildOptions{OptLevel: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verilator agrees on the session of %d runs: %d outputs over %d cycles", len(xs), cr.Outputs, cr.Cycles)
}

// TestSessionCancel: a cancelled context stops a run with its error.
func TestSessionCancel(t *testing.T) {
	cfg := small()
	x := randTensor(rand.New(rand.NewPCG(1, 1)), 2, 6, 6)
	p, err := compiler.Compile(cfg, sessionNet(x))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := NewSession(cfg, p, WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(nil); !errors.Is(err, context.Canceled) {
		t.Errorf("run with a cancelled context: %v, want context.Canceled", err)
	}
}

// WithoutStimulus runs as usual and records nothing: a long run nobody
// replays keeps no row per cycle.
func TestSessionWithoutStimulus(t *testing.T) {
	cfg := small()
	rng := rand.New(rand.NewPCG(25, 26))
	x0, x1 := randTensor(rng, 2, 6, 6), randTensor(rng, 2, 6, 6)
	p, err := compiler.Compile(cfg, sessionNet(x0))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(cfg, p, WithoutStimulus())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, x := range []*golden.Tensor{x0, x1} {
		want, err := sessionNet(x).Reference(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(map[string]*golden.Tensor{"x": x})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if d := cmp.Diff(want["y"], res.Outputs["y"]); d != "" {
			t.Errorf("run %d (-golden +npu):\n%s", i, d)
		}
		if res.Stimulus != nil {
			t.Errorf("run %d: a stimulus of %d cycles was recorded", i, res.Stimulus.Cycles())
		}
	}
	if s.Stimulus() != nil || s.h.rec.Stimulus().Cycles() != 0 {
		t.Errorf("the session recorded %d cycles", s.h.rec.Stimulus().Cycles())
	}
}
