package lower

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/compiler"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// machineRun builds net's graph on x, compiles it for cfg and runs it on
// the reference machine; it fails the test unless the machine's output
// "y" equals the golden models' bit for bit, and returns that output
// dequantized, with the program.
func machineRun(t *testing.T, cfg npu.Config, net *Net, x *onnx.Array) (*onnx.Array, *compiler.Program) {
	t.Helper()
	g, err := net.Graph(x)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Compile(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := compiler.Interpret(p)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := g.Reference(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ref["y"], got["y"]); d != "" {
		t.Fatalf("reference machine vs golden models (-golden +machine):\n%s", d)
	}
	deq, err := net.Dequantize(got["y"])
	if err != nil {
		t.Fatal(err)
	}
	return deq, p
}
