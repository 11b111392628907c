package verilog_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/examples"
	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/verilog"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func emitExample(t *testing.T, name string) (*hdl.Design, []verilog.File) {
	t.Helper()
	ex, err := examples.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdl.Elaborate(ex.Build())
	if err != nil {
		t.Fatal(err)
	}
	return d, verilog.Emit(d)
}

// writeFiles writes the emitted files to a temporary directory and returns
// it with the Verilog file names in dependency order.
func writeFiles(t *testing.T, files []verilog.File) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	if err := verilog.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	var vs []string
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".v") {
			vs = append(vs, f.Name)
		}
	}
	return dir, vs
}

// Every built-in example must lint with zero warnings, compile under
// Icarus, and synthesize without latches or loops.
func TestExamplesLintSynthesize(t *testing.T) {
	tooltest.Need(t, "verilator")
	tooltest.Need(t, "yosys")
	tooltest.Need(t, "iverilog")
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			d, files := emitExample(t, name)
			dir, vs := writeFiles(t, files)
			top := d.Top.Name
			if err := toolchain.Lint(dir, top, vs); err != nil {
				t.Error(err)
			}
			if err := toolchain.Icarus(dir, top, vs); err != nil {
				t.Error(err)
			}
			if slowSynth[name] {
				return // covered by TestSynthesizeNarrowOps and the verify regression
			}
			if _, err := toolchain.Synth(dir, top, vs); err != nil {
				t.Error(err)
			}
		})
	}
}

// Yosys takes minutes on the 130-bit multipliers and shifters of "ops" and
// on the 256 multipliers of "array16"; unit tests synthesize the same
// structures at narrower widths instead.
var slowSynth = map[string]bool{"ops": true, "array16": true}

func TestSynthesizeNarrowOps(t *testing.T) {
	tooltest.Need(t, "yosys")
	d, err := hdl.Elaborate(examples.Ops([]int{1, 5, 17}))
	if err != nil {
		t.Fatal(err)
	}
	dir, vs := writeFiles(t, verilog.Emit(d))
	if _, err := toolchain.Synth(dir, "ops", vs); err != nil {
		t.Error(err)
	}
}

// The same design built twice emits byte-identical files.
func TestEmitDeterministic(t *testing.T) {
	for _, name := range examples.Names() {
		_, a := emitExample(t, name)
		_, b := emitExample(t, name)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s: two emissions differ (-first +second):\n%s", name, diff)
		}
	}
}

// The MAC is small enough to pin down completely: a change in the emitter's
// output style shows up here first. Run with -update to accept a change.
func TestGoldenMAC(t *testing.T) {
	_, files := emitExample(t, "mac")
	got := files[0].Data
	path := filepath.Join("testdata", files[0].Name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./verilog -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("mac Verilog changed (-golden +emitted):\n%s", diff)
	}
}

// Identical children are emitted once; the file list names each module once,
// children first.
func TestDedupAndFileList(t *testing.T) {
	d, files := emitExample(t, "array4")
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	want := []string{"ws_pe_s8_s32.v", "ws_array_4x4_s8_s32.v", "ws_array_4x4_s8_s32.f"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	list := string(files[len(files)-1].Data)
	if list != "ws_pe_s8_s32.v\nws_array_4x4_s8_s32.v\n" {
		t.Errorf("file list = %q", list)
	}
	if got := strings.Count(string(files[1].Data), "ws_pe_s8_s32 pe_"); got != 16 {
		t.Errorf("%s: %d PE instances, want 16", d.Top.Name, got)
	}
}

// Bits that are computed but never read are waived exactly, bit range by
// bit range, and used bits are not.
func TestUnusedBitsWaived(t *testing.T) {
	m := hdl.NewModule("partial")
	a := m.Input("a", hdl.UInt(8))
	b := m.Input("b", hdl.UInt(8))
	m.Input("ignored", hdl.SInt(3))
	m.Output("lo", hdl.UInt(3)).Set(a.Slice(2, 0))
	m.Output("mid", hdl.UInt(1)).Set(a.Bit(5))
	m.Output("sum", hdl.UInt(8)).Set(a.Add(b).Trunc(8))
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	text := string(verilog.Emit(d)[0].Data)
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "_unused_ok") {
			line = strings.TrimSpace(l)
		}
	}
	want := "wire _unused_ok = &{1'b0, ignored, _add1[8], 1'b0};"
	if line != want {
		t.Errorf("unused line = %q, want %q\n%s", line, want, text)
	}
	// a's bits 7..6, 4, 3 are read by the add: nothing of a is waived.
	if strings.Contains(line, "a[") {
		t.Errorf("bits of a waived although the add reads them all")
	}
	if tooltest.Need(t, "verilator") != "" {
		dir, vs := writeFiles(t, verilog.Emit(d))
		if err := toolchain.Lint(dir, "partial", vs); err != nil {
			t.Error(err)
		}
	}
}

func TestWriteDirAtomic(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "rtl")
	good := []verilog.File{{Name: "a.v", Data: []byte("module a; endmodule\n")}}
	if err := verilog.WriteDir(out, good); err != nil {
		t.Fatal(err)
	}
	// A failing write (a bad file name, after a good file) leaves the
	// previous contents untouched and no temporary directory behind.
	bad := []verilog.File{{Name: "b.v", Data: []byte("x")}, {Name: "../escape.v", Data: []byte("x")}}
	if err := verilog.WriteDir(out, bad); err == nil {
		t.Fatal("WriteDir accepted a file name with a directory")
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "rtl" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("parent holds %v, want only rtl", names)
	}
	got, err := os.ReadFile(filepath.Join(out, "a.v"))
	if err != nil || !bytes.Equal(got, good[0].Data) {
		t.Errorf("previous output damaged: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(out, "b.v")); !os.IsNotExist(err) {
		t.Errorf("half-written file b.v exists after a failed write")
	}
	// A successful write replaces the directory as a whole.
	if err := verilog.WriteDir(out, []verilog.File{{Name: "c.v", Data: []byte("c")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "a.v")); !os.IsNotExist(err) {
		t.Errorf("stale a.v survived a rewrite")
	}
}

// A directory hwgen did not write is never replaced: pointing -o at the
// current directory must not delete anything.
func TestWriteDirRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(precious, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := verilog.WriteDir(dir, []verilog.File{{Name: "a.v", Data: []byte("x")}})
	if !errors.Is(err, verilog.ErrNotOurs) {
		t.Fatalf("WriteDir over a foreign directory: %v, want ErrNotOurs", err)
	}
	if got, err := os.ReadFile(precious); err != nil || string(got) != "precious" {
		t.Errorf("user file damaged: %q, %v", got, err)
	}
	// An empty directory is fine, and afterwards it is ours to replace.
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := verilog.WriteDir(empty, []verilog.File{{Name: "a.v", Data: []byte("x")}}); err != nil {
			t.Fatalf("write %d into an empty/own directory: %v", i, err)
		}
	}
}

// A macro memory becomes an instance of a generated macro module whose
// behavioural model comes first in the file list; the array lives inside.
func TestMacroMemory(t *testing.T) {
	_, files := emitExample(t, "memmacro")
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	want := []string{"hwgen_sram_20x12_m.v", "mem_child_t.v", "mem_demo_t.v", "mem_demo_t.f"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	child := string(files[1].Data)
	for _, s := range []string{"hwgen_sram_20x12_m store (", ".wmask(mask)", ".rdata(rd)", "wire [11:0] rd;"} {
		if !strings.Contains(child, s) {
			t.Errorf("child module lacks %q:\n%s", s, child)
		}
	}
	if strings.Contains(child, "reg  [11:0] store") {
		t.Errorf("child still declares the array although it is a macro")
	}
	if !strings.Contains(string(files[0].Data), "reg  [11:0] mem [0:19];") {
		t.Errorf("macro model lacks its array:\n%s", files[0].Data)
	}
}

// A macro has one write port and at most two read ports; more is an
// elaboration error naming the memory and its port counts.
func TestMacroPorts(t *testing.T) {
	for _, tc := range []struct {
		name          string
		writes, reads int
		want          string // "" for no error
	}{
		{"two_writes", 2, 1, "two_writes.ram: an SRAM macro has one write port and at most 2 read ports; this memory has 2 and 1"},
		{"three_reads", 1, 3, "three_reads.ram: an SRAM macro has one write port and at most 2 read ports; this memory has 1 and 3"},
		{"two_reads", 1, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := hdl.NewModule(tc.name)
			a := m.Input("a", hdl.UInt(2))
			mem := m.Memory("ram", 4, hdl.UInt(8)).AsMacro()
			for k := range tc.writes {
				mem.Write(a, hdl.U(8, uint64(k+1)), hdl.U(1, 1))
			}
			for k := range tc.reads {
				m.Output(fmt.Sprintf("q%d", k), hdl.UInt(8)).Set(mem.Read(fmt.Sprintf("rd%d", k), a))
			}
			d, err := hdl.Elaborate(m)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			files := verilog.Emit(d)
			var all string
			for _, f := range files {
				all += string(f.Data)
			}
			for _, s := range []string{"module hwgen_sram_4x8_r2", ".raddr2(a)", ".rdata2(", "2 independent"} {
				if !strings.Contains(all, s) {
					t.Errorf("emitted Verilog lacks %q:\n%s", s, all)
				}
			}
		})
	}
}

// Comparisons with a constant at an end of the other operand's range are
// constant; they must still lint clean, and keep their value.
func TestRangeEndComparesLintClean(t *testing.T) {
	m := hdl.NewModule("range_ends")
	u := m.Input("u", hdl.UInt(2))
	s := m.Input("s", hdl.SInt(3))
	cases := []struct {
		name string
		v    *hdl.Expr
		want string
	}{
		{"u_gt_max", u.Gt(hdl.U(2, 3)), "1'b0"},
		{"u_le_max", u.Le(hdl.U(2, 3)), "1'b1"},
		{"u_ge_0", u.Ge(hdl.U(2, 0)), "1'b1"},
		{"u_lt_0", u.Lt(hdl.U(1, 0)), "1'b0"},
		{"zero_gt_u", hdl.U(2, 0).Gt(u), "1'b0"},
		{"max_ge_u", hdl.U(2, 3).Ge(u), "1'b1"},
		{"s_lt_min", s.Lt(hdl.S(3, -4)), "1'b0"},
		{"s_le_max", s.Le(hdl.S(3, 3)), "1'b1"},
		{"u_gt_2", u.Gt(hdl.U(2, 2)), "u > 2'd2"},
	}
	for _, tc := range cases {
		m.Output(tc.name, hdl.Bool).Set(tc.v)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	files := verilog.Emit(d)
	text := string(files[0].Data)
	for _, tc := range cases {
		if want := "assign " + tc.name + " = " + tc.want + ";"; !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if tooltest.Need(t, "verilator") != "" {
		dir, vs := writeFiles(t, files)
		if err := toolchain.Lint(dir, "range_ends", vs); err != nil {
			t.Error(err)
		}
	}
}

// Values Verilator would find constant are written as literals: 0 shifted
// either way, bits known to be 0 (the fill of a zero-extension, the low
// bits of a left shift, ...) and wires driven by constants. Values with a
// bit that may be 1 stay expressions.
func TestFoldsKnownZeros(t *testing.T) {
	m := hdl.NewModule("known_zeros")
	x := m.Input("x", hdl.UInt(3))
	y := m.Input("y", hdl.UInt(8))
	s := m.Input("s", hdl.SInt(8))
	a := m.Input("a", hdl.UInt(31))
	sel := m.Input("sel", hdl.Bool)
	zw := m.Wire("zw", hdl.UInt(8))
	zw.Set(hdl.U(8, 0))
	zw2 := m.Wire("zw2", hdl.UInt(8))
	zw2.Set(zw)
	cases := []struct {
		name string
		v    *hdl.Expr
		want string // "": not a literal
		val  uint64 // the literal's value
	}{
		{"shl0", hdl.U(8, 0).ShlWrap(x), "8'd0", 0},
		{"shr0", hdl.U(8, 0).Shr(x), "8'd0", 0},
		{"sra0", hdl.S(8, 0).Shr(x), "8'sh0", 0},
		{"grow0", hdl.U(4, 0).Shl(x), "11'd0", 0},
		{"wide0", hdl.U(9, 0).ShlWrap(a), "9'd0", 0},
		{"fill", x.Ext(32).Slice(31, 24), "8'd0", 0},
		{"shlc_low", x.Ext(32).ShlConst(4).Trunc(4), "4'd0", 0},
		{"cat_low", hdl.Cat(x, hdl.U(5, 0)).Slice(4, 0), "5'd0", 0},
		{"and_fill", y.Ext(16).And(a.Trunc(16)).Slice(15, 8), "8'd0", 0},
		{"mux_fill", hdl.Mux(sel, x.Ext(8), y.Trunc(2).Ext(8)).Slice(7, 3), "5'd0", 0},
		{"mux_const_sel", hdl.Mux(hdl.U(1, 1), x.Ext(8), y).Slice(7, 3), "5'd0", 0},
		{"mul_low", x.ShlConst(2).Mul(y.ShlConst(1)).Slice(2, 0), "3'd0", 0},
		{"sext_pos", x.Ext(4).AsSInt().Ext(8).Slice(7, 3), "5'd0", 0},
		{"shr_lead", y.Ext(16).Shr(x).Slice(15, 8), "8'd0", 0},
		{"shl_trail", y.ShlConst(4).ShlWrap(x).Slice(3, 0), "4'd0", 0},
		{"wire_ge", y.Ge(zw2), "1'b1", 1},
		{"mux_same", hdl.Mux(sel, hdl.U(4, 9), hdl.U(4, 9)), "4'd9", 9},
		{"andr_zero_bit", x.Ext(8).AndR(), "1'b0", 0},
		{"past_zeros_le", hdl.U(8, 16).Le(x.Ext(8)), "1'b0", 0},
		{"past_zeros_gt", x.Ext(8).Gt(hdl.U(8, 7)), "1'b0", 0},
		{"past_zeros_lt", x.Ext(8).Lt(hdl.U(8, 8)), "1'b1", 1},
		{"past_zeros_eq", x.Ext(8).Eq(hdl.U(8, 9)), "1'b0", 0},
		{"zero_bit_ne", hdl.Cat(x, hdl.U(1, 0)).Ne(hdl.U(4, 3)), "1'b1", 1},
		{"nonneg_ge", x.Ext(4).AsSInt().Ge(hdl.S(4, -1)), "1'b1", 1},
		{"wire_lt", zw.Lt(y), "", 0}, // 0 < y: not at a range end
		{"sra_sign", s.Shr(x).Slice(7, 4), "", 0},
		{"fill_and_x", x.Ext(32).Slice(24, 2), "", 0},
		{"mux_x", hdl.Mux(sel, x.Ext(8), y).Slice(7, 3), "", 0},
	}
	for _, tc := range cases {
		m.Output(tc.name, tc.v.Type).Set(tc.v)
	}
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	files := verilog.Emit(d)
	text := string(files[0].Data)
	for _, tc := range cases {
		prefix := "assign " + tc.name + " = "
		line := ""
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), prefix) {
				line = strings.TrimSpace(l)
			}
		}
		switch {
		case line == "":
			t.Errorf("no assign of %s in\n%s", tc.name, text)
		case tc.want != "" && line != prefix+tc.want+";":
			t.Errorf("%q, want %q", line, prefix+tc.want+";")
		case tc.want == "" && strings.Contains(line, "'"):
			t.Errorf("%q folded, but it may have a bit set", line)
		}
	}
	// The Go simulator agrees that each folded value is what was written.
	sm, err := sim.New(d)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		for _, p := range []struct {
			name string
			w    int
		}{{"x", 3}, {"y", 8}, {"s", 8}, {"a", 31}, {"sel", 1}} {
			if err := sm.Poke(p.name, rng.Uint64()&(1<<p.w-1)); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range cases {
			if tc.want == "" {
				continue
			}
			if got, err := sm.Peek(tc.name); err != nil || got != tc.val {
				t.Fatalf("%s = %d (%v) in the Go simulator, emitted as %s", tc.name, got, err, tc.want)
			}
		}
	}
	if tooltest.Need(t, "verilator") != "" {
		dir, vs := writeFiles(t, files)
		if err := toolchain.Lint(dir, "known_zeros", vs); err != nil {
			t.Error(err)
		}
	}
}

// An expression built twice is declared once: the second reader uses the
// first one's wire, and so does everything built on the twins; a twin of
// an output's driver reads the output (q = p).
func TestTwinExpressionsShareAWire(t *testing.T) {
	m := hdl.NewModule("twins")
	x, y := m.Input("x", hdl.UInt(8)), m.Input("y", hdl.UInt(8))
	a, b := x.Add(y), x.Add(y)
	m.Output("p", hdl.UInt(9)).Set(a.Xor(x.Ext(9)))
	m.Output("q", hdl.UInt(9)).Set(b.Xor(x.Ext(9)))
	m.Output("r", hdl.UInt(9)).Set(b.Or(y.Ext(9)))
	d, err := hdl.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	text := string(verilog.Emit(d)[0].Data)
	got := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		if rhs, ok := strings.CutPrefix(strings.TrimSpace(line), "wire "); ok && strings.Contains(rhs, " = ") {
			got[rhs[strings.Index(rhs, " = ")+3:]]++
		}
	}
	// x+y once (over the zero-extended x and y), each extension once.
	want := map[string]int{"{{1{1'b0}}, x};": 1, "{{1{1'b0}}, y};": 1, "_ext1 + _ext2;": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("temporary wires by right-hand side (-want +got):\n%s\n%s", diff, text)
	}
	for _, line := range []string{"assign p = _add3 ^ _ext1;", "assign q = p;", "assign r = _add3 | _ext2;"} {
		if !strings.Contains(text, line) {
			t.Errorf("no %q in:\n%s", line, text)
		}
	}
}
