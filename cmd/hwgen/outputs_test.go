package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Files a user added to an emitted directory survive the next emit, and
// emitting into the working directory keeps it the same directory.
func TestEmitKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	rtl := filepath.Join(dir, "rtl")
	if code, _, stderr := capture(t, "emit", "verilog", "--top", "mac", "-o", rtl); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mine := map[string]string{"my_tb.v": "module my_tb; endmodule\n", filepath.Join("sim", "run.log"): "PASS\n"}
	os.Mkdir(filepath.Join(rtl, "sim"), 0o755)
	for name, data := range mine {
		os.WriteFile(filepath.Join(rtl, name), []byte(data), 0o644)
	}
	if code, _, stderr := capture(t, "emit", "verilog", "--top", "mac", "-o", rtl); code != exitOK {
		t.Fatalf("second emit: exit %d: %s", code, stderr)
	}
	for name, data := range mine {
		got, err := os.ReadFile(filepath.Join(rtl, name))
		if err != nil || string(got) != data {
			t.Errorf("%s after the second emit: %q, %v; want %q", name, got, err, data)
		}
	}
	if _, err := os.Stat(filepath.Join(rtl, "mac_s8_s32.v")); err != nil {
		t.Errorf("the design is not there: %v", err)
	}
	// -o . writes into the working directory; it is the same directory
	// afterwards (not renamed away and replaced).
	cwd := filepath.Join(dir, "work")
	os.Mkdir(cwd, 0o755)
	before, _ := os.Stat(cwd)
	t.Chdir(cwd)
	for i := 0; i < 2; i++ {
		if code, _, stderr := capture(t, "emit", "verilog", "--top", "mac", "-o", "."); code != exitOK {
			t.Fatalf("emit -o . (%d): exit %d: %s", i, code, stderr)
		}
	}
	after, err := os.Stat(".")
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the working directory was replaced: %v", err)
	}
	var names []string
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{".hwgen-output", "mac_s8_s32.f", "mac_s8_s32.v"}, names); diff != "" {
		t.Errorf("files in the working directory (-want +got):\n%s", diff)
	}
}

// Every file hwgen writes is readable by all (0644), whichever way it is
// written.
func TestOutputModes(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	if code, _, stderr := capture(t, "sim", "--m", "16", "--k", "16", "--n", "16", "--out", p("out"), "--timeline", p("t.json"), "--vcd", p("w.vcd")); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := capture(t, "sim", "--top", "mac", "--cycles", "5", "--vcd", p("mac.vcd")); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := capture(t, "emit", "verilog", "--top", "mac", "-o", p("rtl")); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"out/y.npy", "out/y.golden.npy", "t.json", "w.vcd", "mac.vcd", "rtl/mac_s8_s32.v"} {
		st, err := os.Stat(p(f))
		if err != nil {
			t.Error(err)
			continue
		}
		if st.Mode().Perm() != outputMode {
			t.Errorf("%s: mode %v, want %v", f, st.Mode().Perm(), os.FileMode(outputMode))
		}
	}
}

// Ctrl-C during a run with --vcd leaves no waveform, whole or partial:
// the help promises "written whole at the end, or not at all".
func TestInterruptedVCD(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hwgen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"workload", []string{"sim", "--op", "conv2d", "--c", "32", "--h", "28", "--w", "28", "--cout", "32"}},
		{"top", []string{"sim", "--top", "mac", "--cycles", "100000000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			vcd := filepath.Join(out, "run.vcd")
			p := startBin(t, bin, cleanEnv(), append(tc.args, "--vcd", vcd)...)
			// Wait until the waveform is being written.
			deadline := time.Now().Add(30 * time.Second)
			for {
				tmps, _ := filepath.Glob(filepath.Join(out, ".run.vcd.tmp-*"))
				if len(tmps) == 1 {
					if st, err := os.Stat(tmps[0]); err == nil && st.Size() > 1<<16 {
						break
					}
				}
				if time.Now().After(deadline) {
					p.cmd.Process.Kill()
					t.Fatalf("no waveform being written after 30 s")
				}
				time.Sleep(20 * time.Millisecond)
			}
			p.cmd.Process.Signal(os.Interrupt)
			r := p.wait(t)
			if r.code != exitFailure || !strings.Contains(r.stderr, "canceled") {
				t.Errorf("exit %d, stderr %q; want exit 1, stopped", r.code, r.stderr)
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				t.Errorf("left behind after Ctrl-C: %s", e.Name())
			}
		})
	}
}

// --vcd-scope and --vcd-depth narrow a waveform; its bound is printed
// before the run and its size after.
func TestVCDFilterFlags(t *testing.T) {
	dir := t.TempDir()
	size := func(args ...string) int64 {
		t.Helper()
		vcd := filepath.Join(dir, "w.vcd")
		code, stdout, stderr := capture(t, append([]string{"sim", "--m", "16", "--k", "16", "--n", "16", "--vcd", vcd}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, w := range []string{"vcd       tracing ", " MB per 1000 cycles", "waveforms " + vcd + " ("} {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", args, w, stdout)
			}
		}
		st, err := os.Stat(vcd)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	all, top, npu := size(), size("--vcd-depth", "0"), size("--vcd-scope", "npu", "--vcd-depth", "1")
	if !(top < npu && npu < all) {
		t.Errorf("sizes: whole %d, top only %d, npu and one level below %d; want top < npu < whole", all, top, npu)
	}
	checkBad(t, []badCase{
		{"unknown scope", []string{"sim", "--vcd", filepath.Join(dir, "x.vcd"), "--vcd-scope", "nope"}, []string{"--vcd-scope", `"nope" is not an instance`, "npu"}},
		{"depth without vcd", []string{"sim", "--vcd-depth", "1"}, []string{"--vcd-depth 1 applies to --vcd only"}},
		{"scope without vcd", []string{"sim", "--top", "mac", "--vcd-scope", "x"}, []string{"--vcd-scope x applies to --vcd only"}},
	})
	if _, err := os.Stat(filepath.Join(dir, "x.vcd")); err == nil {
		t.Error("a refused run left x.vcd")
	}
}
