package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/conformance"
	"github.com/hwgen/hwgen/frontend/onnx"
)

// opsHelp lays out onnx.OpTable's groups in two columns, the Doc wrapped
// at 80 columns under the second.
func TestOpsHelp(t *testing.T) {
	tests := []struct {
		name string
		keep func(onnx.Op) bool
		want []string
	}{
		{"one op", func(o onnx.Op) bool { return o.Name == "Transpose" },
			[]string{
				"  Transpose            of a Gemm or MatMul result (perm [1 0]): a view, free;",
				"                       perm [0,2,1,3,4] inside a channel shuffle (see Reshape)",
			}},
		{"a group, wrapped", func(o onnx.Op) bool { return o.Name == "Min" || o.Name == "Max" },
			[]string{
				"  Min, Max             of two values of one shape: eltwise min or max, the finer",
				"                       operand rescaled; of a value and a one-element constant:",
				"                       a clamp (Max(x, 0) is a ReLU)",
			}},
		{"names wider than the column", func(o onnx.Op) bool {
			return foldedOps(o) && slices.Contains([]string{"Constant", "Shape", "Gather", "Slice", "Cast"}, o.Name)
		},
			[]string{
				"  Constant, Shape, Gather, Slice, Cast   only in a constant subgraph (e.g. the",
				"                       Shape, Gather, Unsqueeze, Concat of PyTorch's",
				"                       x.view(x.size(0), -1)), folded before lowering",
			}},
		{"none", func(onnx.Op) bool { return false }, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Split(strings.TrimSuffix(opsHelp(tt.keep), "\n"), "\n")
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The help of hwgen run lists the ops of onnx.OpTable it takes, and that
// of hwgen conformance the ops whose tests it runs, both from the table.
func TestHelpListsTableOps(t *testing.T) {
	tests := []struct {
		name string
		help string
		want []string
	}{
		{"run", (&runCmd{}).Help(), []string{opsHelp(npuOps) + opsHelp(foldedOps)}},
		{"conformance", (&conformanceCmd{}).Help(), []string{"(" + strings.Join(conformance.Ops, ", ") + ")", "Abs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				if !strings.Contains(tt.help, w) {
					t.Errorf("help lacks %q:\n%s", w, tt.help)
				}
			}
		})
	}
	var listed []string
	for _, g := range append(onnx.OpGroups(npuOps), onnx.OpGroups(foldedOps)...) {
		listed = append(listed, g.Names...)
	}
	float := slices.Clone(onnx.FloatOps)
	slices.Sort(float)
	slices.Sort(listed)
	if d := cmp.Diff(float, listed); d != "" {
		t.Errorf("hwgen run's help lists (-float ops +listed):\n%s", d)
	}
}
