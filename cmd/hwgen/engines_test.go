package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/workload"
)

// hwgen sim --engines 2 splits a conv2d between two engines (balanced,
// equal-area, and equal-area with a task queue per band) and the stitched
// result equals the golden model; an op other than conv2d, an engine
// count out of range, or fewer queues than bands is a usage error.
func TestSimEngines(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sim", "--op", "conv2d", "--c", "5", "--h", "9", "--w", "7", "--cout", "3", "--kernel", "3", "--zeros", "60", "--seed", "4"}
	for _, split := range []string{"balanced", "equal-area", "queue-per-band"} {
		out := filepath.Join(dir, split)
		flags := []string{"--engines", "2", "--split", split, "--out", out}
		if split == "queue-per-band" {
			flags = []string{"--engines", "2", "--queue-per-band", "--set", "queue_round_robin=true", "--out", out}
		}
		if got := run(append(args, flags...)); got != exitOK {
			t.Fatalf("%s: exit %d", split, got)
		}
		w := workload.Workload{Op: "conv2d", C: 5, H: 9, W: 7, Cout: 3, Kernel: 3, Zeros: 60, Seed: 4}.WithDefaults()
		g, err := w.Graph(w.RandomInputs(nil))
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Reference(defaultNPU(t))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readNPY(filepath.Join(out, "y.npy"), golden.S(8), nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want["y"], got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", split, diff)
		}
	}
	if got := run([]string{"sim", "--op", "gemm", "--engines", "2"}); got != exitUsage {
		t.Errorf("gemm on 2 engines: exit %d, want %d", got, exitUsage)
	}
	if got := run(append(args, "--engines", "9")); got != exitUsage {
		t.Errorf("9 engines: exit %d, want %d", got, exitUsage)
	}
	if got := run(append(args, "--engines", "3", "--queue-per-band")); got != exitUsage {
		t.Errorf("3 bands in 2 queues: exit %d, want %d", got, exitUsage)
	}
}
