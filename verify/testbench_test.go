package verify_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
	"github.com/hwgen/hwgen/verilog"
)

// tbCombDesign has no clock and no reset: a child instance, a 70-bit input
// and outputs of 1, 70 and 71 bits.
func tbCombDesign() *hdl.Design {
	child := hdl.NewModule("tb_comb_child")
	x := child.Input("x", hdl.UInt(70))
	child.Output("y", hdl.UInt(70)).Set(x.Not())
	m := hdl.NewModule("tb_comb")
	a := m.Input("a", hdl.UInt(70))
	b := m.Input("b", hdl.UInt(8))
	u := m.Instance("u", child)
	u.Connect("x", a)
	m.Output("sum", hdl.UInt(71)).Set(a.Add(b))
	m.Output("inv", hdl.UInt(70)).Set(u.Out("y"))
	m.Output("eq", hdl.Bool).Set(a.Slice(7, 0).Eq(b))
	return hdl.MustElaborate(m)
}

func tbDesign(t *testing.T, name string) *hdl.Design {
	t.Helper()
	if name == "comb" {
		return tbCombDesign()
	}
	ex, err := examples.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdl.Elaborate(ex.Build())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tbWrite emits d and its testbench for st into a fresh directory and
// returns it with the Verilog sources (design first, so the test also
// shows that the compile order does not matter).
func tbWrite(t *testing.T, d *hdl.Design, st *stim.Stimulus) (dir string, sources []string) {
	t.Helper()
	tb, err := verify.Testbench(d, st)
	if err != nil {
		t.Fatal(err)
	}
	files := append(verilog.Emit(d), tb...)
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".v") {
			sources = append(sources, f.Name)
		}
	}
	dir = filepath.Join(t.TempDir(), "tb")
	if err := verilog.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir, sources
}

// tbRunIcarus compiles the sources with iverilog -g2005 -Wall (which must
// not warn) and runs the result with vvp in runDir; it returns vvp's
// output and exit status.
func tbRunIcarus(t *testing.T, dir, runDir string, sources []string, args ...string) (string, int) {
	t.Helper()
	out, err := toolchain.Run(dir, "iverilog", append([]string{"-g2005", "-Wall", "-o", "sim.vvp"}, sources...)...)
	if err != nil {
		t.Fatal(err)
	}
	if out != "" {
		t.Errorf("iverilog -Wall reported:\n%s", out)
	}
	cmd := exec.Command("vvp", append([]string{"-n", filepath.Join(dir, "sim.vvp")}, args...)...)
	cmd.Dir = runDir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return buf.String(), 0
	case errors.As(err, &ee) && ee.Exited():
		return buf.String(), ee.ExitCode()
	}
	t.Fatalf("vvp: %v\n%s", err, buf.String())
	return "", 0
}

// Every built-in example, and a design without a clock, passes its own
// testbench under Icarus: the Go simulator and Icarus agree on every
// output every cycle, starting from the same all-zero state.
func TestTestbenchPassesUnderIcarus(t *testing.T) {
	tooltest.Need(t, "iverilog")
	tooltest.Need(t, "vvp")
	for _, name := range []string{"mac", "array4", "mem", "ops", "comb"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := tbDesign(t, name)
			dir, sources := tbWrite(t, d, stim.Random(d, 200, 1))
			out, status := tbRunIcarus(t, dir, dir, sources)
			if status != 0 || !strings.Contains(out, "PASS 200 cycles") {
				t.Fatalf("exit status %d, output:\n%s", status, out)
			}
		})
	}
}

// tbFailure is what a FAIL line of a testbench run says, plus its status.
type tbFailure struct {
	Cycle    int
	Port     string
	Expected string
	Got      string
	Status   int
}

var tbFailRE = regexp.MustCompile(`(?m)^FAIL cycle (\d+) port (\w+) expected ([0-9a-fxz]+) got ([0-9a-fxz]+)$`)

func tbParseFailure(t *testing.T, out string, status int) tbFailure {
	t.Helper()
	m := tbFailRE.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		t.Fatalf("want exactly one FAIL line, output:\n%s", out)
	}
	c, _ := strconv.Atoi(m[0][1])
	return tbFailure{Cycle: c, Port: m[0][2], Expected: m[0][3], Got: m[0][4], Status: status}
}

// tamper flips bit 0 of port's field in cycle's row of the expected-output
// file, and returns the field before and after.
func tbTamper(t *testing.T, path string, outputs []stim.Port, cycle int, port string) (orig, flipped string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k := -1
	for i, p := range outputs {
		if p.Name == port {
			k = i
		}
	}
	if k < 0 {
		t.Fatalf("no output %s", port)
	}
	lines := strings.Split(string(data), "\n")
	row := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "//") {
			continue
		}
		if row++; row == cycle {
			fields := strings.Split(l, "_")
			if len(fields) != len(outputs) {
				t.Fatalf("row %d has %d fields for %d outputs: %q", cycle, len(fields), len(outputs), l)
			}
			orig = fields[k]
			last, _ := strconv.ParseUint(orig[len(orig)-1:], 16, 8)
			fields[k] = orig[:len(orig)-1] + strconv.FormatUint(last^1, 16)
			flipped = fields[k]
			lines[i] = strings.Join(fields, "_")
			break
		}
	}
	if flipped == "" {
		t.Fatalf("no row %d in %s", cycle, path)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return orig, flipped
}

// A wrong expected value (here: one bit flipped in the emitted data) is
// reported at its cycle and port, as the first mismatch, with a non-zero
// exit status.
func TestTestbenchReportsFirstMismatch(t *testing.T) {
	tooltest.Need(t, "iverilog")
	tooltest.Need(t, "vvp")
	cases := []struct {
		design string
		cycle  int
		port   string
	}{
		{"mac", 7, "y"},
		{"mem", 0, "q_c1"},
		{"ops", 150, "s130_mul"}, // 130 bits
		{"ops", 3, "u1_eq"},      // 1 bit
		{"comb", 42, "sum"},      // no clock
		{"array4", 199, "out_3"}, // the last cycle
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d/%s", tc.design, tc.cycle, tc.port), func(t *testing.T) {
			t.Parallel()
			d := tbDesign(t, tc.design)
			dir, sources := tbWrite(t, d, stim.Random(d, 200, 2))
			_, outputs := stim.Ports(d)
			orig, flipped := tbTamper(t, filepath.Join(dir, "tb_"+d.Top.Name+"_exp.hex"), outputs, tc.cycle, tc.port)
			out, status := tbRunIcarus(t, dir, dir, sources)
			got := tbParseFailure(t, out, status)
			want := tbFailure{Cycle: tc.cycle, Port: tc.port, Expected: flipped, Got: orig, Status: 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tbFailure report (-want +got):\n%s\noutput:\n%s", diff, out)
			}
			if strings.Contains(out, "PASS") {
				t.Errorf("a failing run also printed PASS:\n%s", out)
			}
		})
	}
}

// The data files are found in the working directory or through
// +tbdir=DIR; when they cannot be read the run fails instead of comparing
// against nothing.
func TestTestbenchFindsItsData(t *testing.T) {
	tooltest.Need(t, "iverilog")
	tooltest.Need(t, "vvp")
	d := tbDesign(t, "mac")
	dir, sources := tbWrite(t, d, stim.Random(d, 20, 1))
	elsewhere := t.TempDir()
	for i, s := range sources {
		sources[i] = filepath.Join(dir, s)
	}
	out, status := tbRunIcarus(t, dir, elsewhere, sources, "+tbdir="+dir)
	if status != 0 || !strings.Contains(out, "PASS 20 cycles") {
		t.Errorf("+tbdir: exit status %d, output:\n%s", status, out)
	}
	out, status = tbRunIcarus(t, dir, elsewhere, sources)
	if status == 0 || !strings.Contains(out, "FAIL cannot read ./tb_mac_s8_s32_in.hex") {
		t.Errorf("no data: exit status %d, output:\n%s", status, out)
	}
	// A truncated file misses the end marker.
	exp := filepath.Join(dir, "tb_mac_s8_s32_exp.hex")
	data, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(exp, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, status = tbRunIcarus(t, dir, dir, sources)
	if status == 0 || !strings.Contains(out, "FAIL cannot read ./tb_mac_s8_s32_exp.hex") {
		t.Errorf("truncated data: exit status %d, output:\n%s", status, out)
	}
}

// The data files hold the stimulus and the Go simulator's outputs, one
// row per cycle with one field per port, then the end marker.
func TestTestbenchFiles(t *testing.T) {
	for _, name := range []string{"mac", "ops", "comb"} {
		t.Run(name, func(t *testing.T) {
			d := tbDesign(t, name)
			st := stim.Random(d, 30, 5)
			files, err := verify.Testbench(d, st)
			if err != nil {
				t.Fatal(err)
			}
			again, err := verify.Testbench(d, st)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(files, again); diff != "" {
				t.Errorf("not deterministic (-first +second):\n%s", diff)
			}
			tb := "tb_" + d.Top.Name
			var names []string
			byName := map[string]string{}
			for _, f := range files {
				names = append(names, f.Name)
				byName[f.Name] = string(f.Data)
			}
			if diff := cmp.Diff([]string{tb + ".v", tb + "_in.hex", tb + "_exp.hex"}, names); diff != "" {
				t.Errorf("file names (-want +got):\n%s", diff)
			}
			if !strings.Contains(byName[tb+".v"], "module "+tb+";") {
				t.Errorf("%s.v does not declare module %s", tb, tb)
			}

			inputs, outputs := stim.Ports(d)
			exp, err := verify.RunGo(d, st, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			var wantIn, wantExp []string
			for c, row := range st.Rows {
				var f []string
				for i, v := range row {
					f = append(f, fmt.Sprintf("%0*x", (inputs[i].Type.Width+3)/4, v))
				}
				wantIn = append(wantIn, strings.Join(f, "_"))
				wantExp = append(wantExp, strings.Join(exp[c], "_"))
			}
			wantIn = append(wantIn, tbMarker(inputs))
			wantExp = append(wantExp, tbMarker(outputs))
			if diff := cmp.Diff(wantIn, tbDataRows(byName[tb+"_in.hex"])); diff != "" {
				t.Errorf("stimulus rows (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantExp, tbDataRows(byName[tb+"_exp.hex"])); diff != "" {
				t.Errorf("expected rows (-want +got):\n%s", diff)
			}
		})
	}
}

func tbMarker(ports []stim.Port) string {
	var f []string
	for _, p := range ports {
		f = append(f, strings.Repeat("f", (p.Type.Width+3)/4))
	}
	return strings.Join(f, "_")
}

func tbDataRows(hex string) []string {
	var rows []string
	for _, l := range strings.Split(strings.TrimSuffix(hex, "\n"), "\n") {
		if !strings.HasPrefix(l, "//") {
			rows = append(rows, l)
		}
	}
	return rows
}

func TestTestbenchRejectsBadStimulus(t *testing.T) {
	mac := tbDesign(t, "mac")
	other := tbDesign(t, "comb")
	tooWide := stim.Random(mac, 3, 1)
	tooWide.Rows[1][1] = new(big.Int).Lsh(big.NewInt(1), 8) // a is 8 bits
	cases := []struct {
		name string
		st   *stim.Stimulus
		want string
	}{
		{"no cycles", stim.Random(mac, 0, 1), "no cycles"},
		{"other design", stim.Random(other, 3, 1), "stimulus drives 2 inputs, design mac_s8_s32 has 5"},
		{"too wide", tooWide, "stimulus cycle 1: value 256 does not fit input a"},
	}
	for _, tc := range cases {
		_, err := verify.Testbench(mac, tc.st)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
