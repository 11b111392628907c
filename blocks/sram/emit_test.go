package sram

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/internal/tooltest"
	"github.com/hwgen/hwgen/verilog"
)

// build elaborates one of the two blocks.
func build(t testing.TB, block string, state StateConfig, psum PsumConfig, macros bool) *hdl.Design {
	t.Helper()
	if block == "state" {
		m, err := StateBuffer(state, macros)
		return elaborate(t, m, err)
	}
	return psumDesign(t, psum, macros)
}

func fileNames(files []verilog.File) []string {
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

// Module names follow the parameters; the P identical banks and the
// lanes are emitted once; the macro form adds the macro's behavioural
// model and instantiates it instead of declaring an array.
func TestEmittedModules(t *testing.T) {
	st := StateConfig{Partitions: 4, Depth: 16, ElemWidth: 8}
	ps := PsumConfig{Partitions: 3, Depth: 8, AccWidth: 12}
	cases := []struct {
		block  string
		macros bool
		files  []string
		bank   string // the module holding the array
		array  string // how the array appears in it
	}{
		{"state", false,
			[]string{"sb_bank_16x8_r4w2_arr.v", "sram_arb_2_4.v", "sram_arb_4_4.v", "state_buffer_4x16x8_arr.f", "state_buffer_4x16x8_arr.v"},
			"sb_bank_16x8_r4w2_arr.v", "reg  [7:0] ram [0:15];"},
		{"state", true,
			[]string{"hwgen_sram_16x8.v", "sb_bank_16x8_r4w2_macro.v", "sram_arb_2_4.v", "sram_arb_4_4.v", "state_buffer_4x16x8_macro.f", "state_buffer_4x16x8_macro.v"},
			"sb_bank_16x8_r4w2_macro.v", "hwgen_sram_16x8 ram ("},
		{"psum", false,
			[]string{"psum_buffer_3x8_s12_arr.f", "psum_buffer_3x8_s12_arr.v", "psum_lane_8_s12_arr.v", "sram_arb_2_3.v"},
			"psum_lane_8_s12_arr.v", "reg  [11:0] ram [0:7];"},
		{"psum", true,
			[]string{"hwgen_sram_8x12.v", "psum_buffer_3x8_s12_macro.f", "psum_buffer_3x8_s12_macro.v", "psum_lane_8_s12_macro.v", "sram_arb_2_3.v"},
			"psum_lane_8_s12_macro.v", "hwgen_sram_8x12 ram ("},
	}
	for _, tc := range cases {
		t.Run(tc.block+"/"+form(tc.macros), func(t *testing.T) {
			files := verilog.Emit(build(t, tc.block, st, ps, tc.macros))
			if diff := cmp.Diff(tc.files, fileNames(files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			for _, f := range files {
				if f.Name == tc.bank && !strings.Contains(string(f.Data), tc.array) {
					t.Errorf("%s does not contain %q:\n%s", f.Name, tc.array, f.Data)
				}
				if strings.HasPrefix(f.Name, "hwgen_sram_") && !strings.Contains(string(f.Data), "Behavioural model of an SRAM macro") {
					t.Errorf("%s is not the macro's behavioural model", f.Name)
				}
			}
		})
	}
	// Different parameters never share a name; equal ones always do.
	names := map[string]string{}
	for _, c := range []StateConfig{{4, 16, 8, false, false}, {4, 16, 4, false, false}, {4, 32, 8, false, false}, {2, 16, 8, false, false}, {4, 16, 8, true, false}, {4, 16, 8, false, true}} {
		for _, macros := range []bool{false, true} {
			m, err := StateBuffer(c, macros)
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprint(c, macros)
			if prev, dup := names[m.Name]; dup {
				t.Errorf("%s and %s are both named %s", prev, key, m.Name)
			}
			names[m.Name] = key
			again, _ := StateBuffer(c, macros)
			if again.Name != m.Name {
				t.Errorf("%s: names %s and %s for one configuration", key, m.Name, again.Name)
			}
		}
	}
}

// Every emitted form lints clean under Verilator -Wall, compiles under
// Icarus and synthesizes in Yosys without latches or loops.
func TestLintSynth(t *testing.T) {
	tooltest.Need(t, "verilator")
	tooltest.Need(t, "yosys")
	tooltest.Need(t, "iverilog")
	st := StateConfig{Partitions: 3, Depth: 8, ElemWidth: 4}
	ps := PsumConfig{Partitions: 2, Depth: 8, AccWidth: 10}
	for _, block := range []string{"state", "psum", "state_dma_port", "state_planar_port", "psum_read_out_port"} {
		for _, macros := range []bool{false, true} {
			t.Run(block+"/"+form(macros), func(t *testing.T) {
				st, ps, kind := st, ps, block // (block itself names the next form's run too)
				switch block {
				case "state_dma_port":
					kind, st.DMAReadPort = "state", true
				case "state_planar_port":
					kind, st.PlanarReadPort = "state", true
				case "psum_read_out_port":
					kind, ps.ReadOutPort, ps.WritePriority = "psum", true, true
				}
				d := build(t, kind, st, ps, macros)
				dir, vs := writeVerilog(t, d)
				if err := toolchain.Lint(dir, d.Top.Name, vs); err != nil {
					t.Error(err)
				}
				if err := toolchain.Icarus(dir, d.Top.Name, vs); err != nil {
					t.Error(err)
				}
				if _, err := toolchain.Synth(dir, d.Top.Name, vs); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// writeVerilog emits d into a fresh directory and returns it with the
// Verilog files in dependency order.
func writeVerilog(t testing.TB, d *hdl.Design) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files := verilog.Emit(d)
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
