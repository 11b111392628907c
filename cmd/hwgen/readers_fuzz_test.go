package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hwgen/hwgen/blocks/npu"
)

// A workload file of any content is a workload or an error, never a
// panic, and the workload it gives builds its graph (the tensors fit the
// external memory, so this stays small).
func FuzzWorkloadJSON(f *testing.F) {
	for _, s := range []string{
		`{"op": "conv2d", "c": 5, "h": 6, "w": 7, "cout": 3, "kernel": 3}`,
		`{"op": "pool", "pool": "avg", "kernel": 3, "stride": 2, "pad": 1}`,
		`{"op": "gemm", "m": 8000, "k": 8000, "n": 8000}`,
		`{"op": "net", "c": 1, "h": 4, "w": 4}`,
		`{"op": "eltwise", "fn": "mul", "c": 2, "h": 2, "w": 2}`,
		`{"op": "transpose", "m": 3, "n": 0}`,
		`{"op": "conv2d", "kernel": 9, "h": 2, "pad": 0}`,
		`{"op": "gemm", "inputs": {"a": "missing.npy"}}`,
		`{"op": 3}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "w.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := &simCmd{Seed: 1}
		c.Workload, c.Engine = path, "go"
		w, given, err := c.workload()
		if err != nil {
			return
		}
		if g, err := w.Graph(w.RandomInputs(given)); err == nil && g == nil {
			t.Fatal("no graph and no error")
		}
	})
}

// --set takes any FIELD=VALUE without panicking.
func FuzzSet(f *testing.F) {
	for _, s := range []string{"rows=4", "zero_skip=1", "zero_skip=true", "rows=many", "taskmgr={\"window\": 3}", "=", "rows=1e99", "rows=-1", "planar={}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := configure(npu.DefaultConfig, blockFlags{Set: []string{s}})
		if err != nil {
			return
		}
		if cfg.Validate() == nil {
			cfg.Codec()
		}
	})
}
