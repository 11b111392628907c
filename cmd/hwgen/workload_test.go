package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/workload"
)

// .npy tensors in, the result out: hwgen sim reads the inputs, writes
// y.npy and y.golden.npy, and they equal the golden model of the inputs.
func TestSimNPYRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w := workload.Workload{Op: "conv2d", C: 5, H: 6, W: 7, Cout: 3, Kernel: 3, Seed: 9}.WithDefaults()
	in := w.RandomInputs(nil)
	elem := golden.S(8)
	for name, tens := range in {
		if err := writeNPY(filepath.Join(dir, name+".npy"), tens, elem); err != nil {
			t.Fatal(err)
		}
	}
	wl := filepath.Join(dir, "layer.json")
	if err := os.WriteFile(wl, []byte(`{"op": "conv2d", "c": 5, "h": 6, "w": 7, "cout": 3, "kernel": 3, "inputs": {"x": "x.npy"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if got := run([]string{"sim", "--workload", wl, "--in", "w=" + filepath.Join(dir, "w.npy"), "--out", out}); got != exitOK {
		t.Fatalf("exit %d", got)
	}
	g, err := w.Graph(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.Reference(defaultNPU(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"y.npy", "y.golden.npy"} {
		got, err := readNPY(filepath.Join(out, f), elem, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want["y"], got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f, diff)
		}
	}
	// An element that does not fit int8 is refused with its index.
	big := golden.New(2, 2)
	big.Data[3] = 300
	if err := writeNPY(filepath.Join(dir, "big.npy"), big, golden.S(16)); err != nil {
		t.Fatal(err)
	}
	if _, err := readNPY(filepath.Join(dir, "big.npy"), elem, nil); err == nil {
		t.Error("300 read as an int8 element")
	}
}

func defaultNPU(t *testing.T) npu.Config {
	t.Helper()
	c, err := npuConfig(blockFlags{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
