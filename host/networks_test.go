package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/compiler"
)

// TestProgramAt: on an NPU with base pointers, a program compiled once
// runs from another place in external memory by its base pointer alone
// (compiler.Program.At): the reference machine and the NPU give the
// golden result, and the descriptors are the compiled ones, bit for bit.
func TestProgramAt(t *testing.T) {
	cfg := small()
	cfg.Networks, cfg.ExtAddrWidth = 1, 11
	g := toyNet()
	want, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []int{0, 37, 1<<cfg.ExtAddrWidth - p.ExtLines} {
		moved, err := p.At(base)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(p.Descriptors(), moved.Descriptors()); d != "" {
			t.Fatalf("moving to line %d changed descriptors:\n%s", base, d)
		}
		ref, _, err := compiler.Interpret(moved)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, ref); d != "" {
			t.Errorf("at line %d, the reference machine (-golden +machine):\n%s", base, d)
		}
		res, err := Run(cfg, moved, WithoutStimulus())
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, res.Outputs); d != "" {
			t.Errorf("at line %d, the NPU (-golden +npu):\n%s", base, d)
		}
	}
	if _, err := p.At(1 << cfg.ExtAddrWidth); err == nil {
		t.Error("a program moved past the end of external memory was accepted")
	}
}
