package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "sys.json")
	if err := os.WriteFile(cfgFile, []byte(`{"rows": 3, "cols": 5, "zero_skip": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	badCfg := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badCfg, []byte(`{"taskmgr": {"window": 3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"list designs", []string{"designs"}, exitOK},
		{"emit", []string{"emit", "verilog", "--top", "mac", "-o", filepath.Join(dir, "rtl")}, exitOK},
		{"sim with vcd", []string{"sim", "--top", "mac", "--cycles", "30", "--vcd", filepath.Join(dir, "mac.vcd")}, exitOK},
		{"unknown design", []string{"sim", "--top", "nope"}, exitUsage},
		{"unknown design emit", []string{"emit", "verilog", "--top", "nope", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"zero cycles", []string{"sim", "--top", "mac", "--cycles", "0"}, exitUsage},
		{"workload: default gemm on the default NPU", []string{"sim", "--m", "20", "--k", "40", "--n", "24", "--timeline", filepath.Join(dir, "tl.json")}, exitOK},
		// The smallest weight buffer (one pass: the loader's base wraps) and
		// the array without zero skipping still compute the golden result.
		{"workload: weight_depth = rows", []string{"sim", "--set", "rows=4", "--set", "cols=4", "--set", "weight_depth=4", "--m", "8", "--k", "12", "--n", "8"}, exitOK},
		{"workload: no zero skipping", []string{"sim", "--set", "zero_skip=false", "--m", "20", "--k", "40", "--n", "24"}, exitOK},
		{"workload: weight_depth below rows", []string{"sim", "--set", "weight_depth=8"}, exitUsage},
		{"workload: unknown op", []string{"sim", "--op", "fft"}, exitUsage},
		{"workload: unknown tensor", []string{"sim", "--in", "q=" + file}, exitUsage},
		{"workload: not an npy file", []string{"sim", "--in", "a=" + file}, exitUsage},
		{"workload: kernel larger than the input", []string{"sim", "--op", "conv2d", "--h", "4", "--kernel", "7", "--pad", "0"}, exitUsage},
		{"workload: bad npu config", []string{"sim", "--set", "cols=64"}, exitUsage},
		{"workload: missing workload file", []string{"sim", "--workload", filepath.Join(dir, "none.json")}, exitUsage},
		{"negative cycles verify", []string{"verify", "--cycles", "-3"}, exitUsage},
		{"unknown flag", []string{"sim", "--bogus"}, exitUsage},
		{"unknown command", []string{"frobnicate"}, exitUsage},
		{"testbench", []string{"emit", "testbench", "--top", "mac", "--cycles", "20", "-o", filepath.Join(dir, "tb")}, exitOK},
		{"testbench zero cycles", []string{"emit", "testbench", "--cycles", "0", "-o", filepath.Join(dir, "tb2")}, exitUsage},
		{"testbench over a foreign directory", []string{"emit", "testbench", "--top", "mac", "-o", dir}, exitUsage},
		{"systolic with --set", []string{"emit", "verilog", "--top", "systolic", "--set", "rows=4", "--set", "cols=2", "-o", filepath.Join(dir, "sys")}, exitOK},
		{"systolic from a config file", []string{"emit", "verilog", "--top", "systolic", "--config", cfgFile, "-o", filepath.Join(dir, "sys2")}, exitOK},
		{"systolic invalid value", []string{"emit", "verilog", "--top", "systolic", "--set", "rows=0", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"systolic unknown field", []string{"emit", "verilog", "--top", "systolic", "--set", "bogus=1", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"systolic wrong type", []string{"emit", "verilog", "--top", "systolic", "--set", "rows=many", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"set on an example", []string{"emit", "verilog", "--top", "mac", "--set", "rows=4", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"sim a block", []string{"sim", "--top", "systolic", "--set", "rows=2", "--set", "cols=2", "--cycles", "20"}, exitOK},
		{"config", []string{"config"}, exitOK},
		{"descriptor table", []string{"config", "--descriptors"}, exitOK},
		{"config with a bad field value", []string{"config", "--config", badCfg}, exitUsage},
		{"emit the planar engine", []string{"emit", "verilog", "--top", "planar", "--set", "lanes=2", "--set", "psum_lanes=2", "-o", filepath.Join(dir, "pl")}, exitOK},
		{"emit the task manager", []string{"emit", "verilog", "--top", "taskmgr", "--set", "window=16", "-o", filepath.Join(dir, "tm")}, exitOK},
		{"output over a foreign directory", []string{"emit", "verilog", "--top", "mac", "-o", dir}, exitUsage},
		{"output under a file", []string{"emit", "verilog", "--top", "mac", "-o", filepath.Join(file, "rtl")}, exitUsage}, // the caller's path, as sim --out FILE
		{"fuzz: shard out of range", []string{"verify", "fuzz", "--shard", "4/4"}, exitUsage},
		{"fuzz: --shards without an index", []string{"verify", "fuzz", "--shards", "4"}, exitUsage},
		{"fuzz: --shard and --shard-from-env", []string{"verify", "fuzz", "--shard", "0/4", "--shard-from-env"}, exitUsage},
		{"fuzz: result in a missing directory", []string{"verify", "fuzz", "--result", filepath.Join(dir, "no", "r.json")}, exitUsage},
		{"merge: no files", []string{"merge"}, exitUsage},
		{"merge: a file that is not a result", []string{"merge", file}, exitFailure},
		{"merge: a missing file", []string{"merge", filepath.Join(dir, "none.json")}, exitFailure},
		{"sim through descriptor rings with partial gating", []string{"sim", "--op", "gemm", "--m", "20", "--k", "16", "--n", "16", "--set", "desc_ring_bits=2", "--set", "queue_depth=2", "--set", "partial_gating=true"}, exitOK},
		{"partial gating on two engines", []string{"sim", "--op", "gemm", "--set", "partial_gating=true", "--set", "engines=2"}, exitUsage},
		{"vcd in missing dir", []string{"sim", "--top", "mac", "--cycles", "5", "--vcd", filepath.Join(dir, "no", "such", "x.vcd")}, exitUsage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(tc.args); got != tc.want {
				t.Errorf("hwgen %s: exit %d, want %d", strings.Join(tc.args, " "), got, tc.want)
			}
		})
	}
	// The successful runs wrote what they said.
	for _, f := range []string{"rtl/mac_s8_s32.v", "rtl/mac_s8_s32.f", "mac.vcd", "tb/tb_mac_s8_s32.v", "tb/tb_mac_s8_s32_exp.hex",
		"sys/systolic_4x2_s8_s8_s32_e9_n48_zs.v", "sys2/systolic_3x5_s8_s8_s32_e9_n48_dense.v", "tl.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("expected output %s: %v", f, err)
		}
	}
	// The failed VCD run left nothing behind.
	if entries, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(entries) > 0 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// HWGEN_CPUPROFILE writes a pprof CPU profile (gzip) of the command; an
// unwritable path is a usage error before anything runs.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.prof")
	t.Setenv("HWGEN_CPUPROFILE", path)
	ran := false
	if code := profiled(func() int { ran = true; return exitOK }); code != exitOK || !ran {
		t.Fatalf("exit %d, ran %v", code, ran)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile of %d bytes is not gzip (a pprof profile)", len(b))
	}
	t.Setenv("HWGEN_CPUPROFILE", filepath.Join(dir, "no", "such", "dir", "cpu.prof"))
	ran = false
	if code := profiled(func() int { ran = true; return exitOK }); code != exitUsage || ran {
		t.Errorf("unwritable profile: exit %d (want %d), ran %v", code, exitUsage, ran)
	}
}
