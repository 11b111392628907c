package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/blocks/npu"
	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
	"github.com/hwgen/hwgen/host"
)

// firstDifference walks the values in order and stops at the first
// element that differs, or at a value missing or misshapen on the other
// side; values the reference lacks are skipped.
func TestFirstDifference(t *testing.T) {
	ten := func(shape []int, v ...int64) *golden.Tensor { return &golden.Tensor{Shape: shape, Data: v} }
	want := map[string]*golden.Tensor{
		"a": ten([]int{2, 2}, 1, 2, 3, 4),
		"b": ten([]int{1, 3}, 5, 6, 7),
	}
	order := []string{"skipped", "a", "b"}
	for _, tc := range []struct {
		name string
		got  map[string]*golden.Tensor
		want *difference
	}{
		{"equal", map[string]*golden.Tensor{"a": ten([]int{2, 2}, 1, 2, 3, 4), "b": ten([]int{1, 3}, 5, 6, 7)}, nil},
		{"the first layer wins", map[string]*golden.Tensor{"a": ten([]int{2, 2}, 1, 2, 9, 4), "b": ten([]int{1, 3}, 0, 6, 7)},
			&difference{Value: "a", Index: []int{1, 0}, Got: 9, Want: 3}},
		{"a later layer", map[string]*golden.Tensor{"a": ten([]int{2, 2}, 1, 2, 3, 4), "b": ten([]int{1, 3}, 5, 6, -7)},
			&difference{Value: "b", Index: []int{0, 2}, Got: -7, Want: 7}},
		{"missing", map[string]*golden.Tensor{"b": ten([]int{1, 3}, 5, 6, 7)},
			&difference{Value: "a", Missing: true, WantShape: []int{2, 2}}},
		{"misshapen", map[string]*golden.Tensor{"a": ten([]int{4}, 1, 2, 3, 4)},
			&difference{Value: "a", Missing: true, WantShape: []int{2, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, firstDifference(order, want, tc.got)); diff != "" {
				t.Errorf("firstDifference (-want +got):\n%s", diff)
			}
		})
	}
}

// A difference injected into the simulator's results fails the run (exit
// 1) and is located layer by layer: the first layer that differs on the
// probe program, or, when every layer agrees there, the statement that
// the difference depends on the original program.
func TestRunLocatesDifference(t *testing.T) {
	defer func() { tamperNPU = nil }()
	const out, inner = "Plus214_Output_0", "ReLU114_Output_0"
	for _, tc := range []struct {
		name   string
		values []string // the values the tampering changes, where present
		probe  bool     // in the probe program too
		want   string
	}{
		{"an inner layer", []string{inner, out}, true,
			"first difference: layer ReLU114_Output_0[0 0 7] = 100 on the NPU, "},
		{"the output only", []string{out}, false,
			"every layer agrees there, so the difference depends on the original program's schedule or buffers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tamperNPU = func(res *host.Result, probe bool) {
				if probe && !tc.probe {
					return
				}
				for _, name := range tc.values {
					if v := res.Outputs[name]; v != nil {
						v.Data[7] = 100
					}
				}
			}
			code, stdout, stderr := capture(t, "run", "--model", mnistModel, "--engine", "go")
			if code != 1 || !strings.Contains(stderr, "FAIL: "+out+"[0 7] = 100 on the NPU") {
				t.Errorf("exit %d, want 1 with the output's FAIL; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "locate    layer by layer") || !strings.Contains(stdout, tc.want) {
				t.Errorf("stdout lacks %q:\n%s", tc.want, stdout)
			}
		})
	}
}

// locate names the first layer where the reference machine departs from
// the golden models: a golden value changed by hand is found there, and
// unchanged ones give the statement that every layer agrees.
func TestLocateAgainstGolden(t *testing.T) {
	m, err := onnx.LoadFile(mnistModel)
	if err != nil {
		t.Fatal(err)
	}
	x := randomInput([]int{1, 1, 28, 28}, 3)
	cfg := npu.DefaultConfig()
	net, err := lower.Quantize(m, []*onnx.Array{x}, cfg, lower.Int32Output())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change string // the golden value changed, or ""
		want   string
	}{
		{"agree", "", "every layer agrees there"},
		{"pool", "Pooling66_Output_0", "first difference: layer Pooling66_Output_0[0 0 5] = "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, vals, err := net.GraphValues(x)
			if err != nil {
				t.Fatal(err)
			}
			gold, err := g.ReferenceOf(cfg, vals)
			if err != nil {
				t.Fatal(err)
			}
			if tc.change != "" {
				gold[tc.change].Data[5] += 1
			}
			var b strings.Builder
			locate(&b, cfg, net, map[string]*onnx.Array{net.Input(): x}, gold, false)
			if !strings.Contains(b.String(), tc.want) || tc.change != "" && !strings.Contains(b.String(), "on the reference machine") {
				t.Errorf("locate printed:\n%s\nwant %q", b.String(), tc.want)
			}
		})
	}
}
