package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// docs/onnx-ops.md is OpTable as OpsMarkdown writes it.
func TestOpsDocInStep(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "onnx-ops.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; write it with: go generate ./frontend/onnx", err)
	}
	if d := cmp.Diff(strings.Split(string(b), "\n"), strings.Split(OpsMarkdown(), "\n")); d != "" {
		t.Errorf("docs/onnx-ops.md is out of step with onnx.OpTable; rewrite it with: go generate ./frontend/onnx\n(-file +table):\n%s", d)
	}
}

// Every row of OpTable is well formed: a name given once, a one-line Doc,
// an opset inside the reader's range, taken by some part of the frontend,
// lowered only when the float executor (which calibrates) runs it.
func TestOpTableRows(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range OpTable {
		var bad []string
		if o.Name == "" || seen[o.Name] {
			bad = append(bad, "a name given once")
		}
		seen[o.Name] = true
		if o.Doc == "" || strings.ContainsAny(o.Doc, "\n|") {
			bad = append(bad, "a one-line Doc without |")
		}
		if lo, hi := o.Opsets(); o.Since != 0 && (o.Since <= MinOpset || lo > hi) {
			bad = append(bad, "Since 0 or inside MinOpset+1..MaxOpset")
		}
		if lo, hi := o.Opsets(); o.Until != 0 && (o.Until >= MaxOpset || lo > hi) {
			bad = append(bad, "Until 0 or inside Since..MaxOpset-1")
		}
		if !o.Float && !o.Conformance {
			bad = append(bad, "Float or Conformance")
		}
		if o.NPU && !o.Float {
			bad = append(bad, "NPU only with Float")
		}
		if len(bad) > 0 {
			t.Errorf("%+v: want %s", o, strings.Join(bad, ", "))
		}
	}
}

// The lists derived from OpTable, and its groups of one Doc.
func TestOpNamesAndGroups(t *testing.T) {
	if d := cmp.Diff(OpNames(func(Op) bool { return true }), SupportedOps); d != "" {
		t.Errorf("SupportedOps (-table +list):\n%s", d)
	}
	for _, op := range FloatOps {
		if !slices.Contains(SupportedOps, op) {
			t.Errorf("%s runs in float but is missing from SupportedOps", op)
		}
	}
	tests := []struct {
		name string
		keep func(Op) bool
		want []OpGroup
	}{
		{"folded only", func(o Op) bool { return o.Doc == docFoldOnly },
			[]OpGroup{{Names: []string{"Constant", "Shape", "Gather", "Slice", "Cast"}, Doc: docFoldOnly}}},
		{"activations", func(o Op) bool { return o.Doc == docAct },
			[]OpGroup{{Names: []string{"Sigmoid", "Tanh", "Exp", "HardSigmoid", "HardSwish", "Elu", "LeakyRelu"}, Doc: docAct}}},
		{"views", func(o Op) bool { return o.Doc == docView },
			[]OpGroup{{Names: []string{"Flatten", "Reshape", "Squeeze", "Unsqueeze"}, Doc: docView}}},
		{"Min, Abs, Max: not next to each other", func(o Op) bool { return o.Name == "Min" || o.Name == "Abs" || o.Name == "Max" },
			[]OpGroup{{Names: []string{"Min", "Max"}, Doc: docMinMax}, {Names: []string{"Abs"}, Doc: OpTable[slices.IndexFunc(OpTable, func(o Op) bool { return o.Name == "Abs" })].Doc}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, OpGroups(tt.keep)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, ok := LookupOp("Einsum"); ok {
		t.Error("LookupOp finds Einsum")
	}
	if o, ok := LookupOp("QLinearConv"); !ok || o.Since != 10 {
		t.Errorf("LookupOp(QLinearConv) = %+v, %v", o, ok)
	}
}

// Check takes an op of OpTable in every opset its row gives, and refuses it
// below.
func TestCheckOpsets(t *testing.T) {
	tests := []struct {
		op      string
		opset   int64
		wantErr string
	}{
		{"Relu", MinOpset, ""},
		{"Relu", MaxOpset, ""},
		{"QuantizeLinear", 10, ""},
		{"QuantizeLinear", 9, `node 0 "q" (QuantizeLinear): op QuantizeLinear in default-domain opset 9 not supported; supported: opsets 10 to 21`},
		{"QLinearConv", 7, `op QLinearConv in default-domain opset 7 not supported; supported: opsets 10 to 21`},
		{"Relu", 1, ""},
		{"Upsample", 9, ""},
		{"Upsample", 10, `op Upsample in default-domain opset 10 not supported; supported: opsets 7 to 9`},
		{"Upsample", 6, `op Upsample in default-domain opset 6 not supported; supported: opsets 7 to 9`},
		{"HardSwish", 13, `op HardSwish in default-domain opset 13 not supported; supported: opsets 14 to 21`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s opset %d", tt.op, tt.opset), func(t *testing.T) {
			m := load(t, onnxtest.New(tt.opset).Input("x", 1).Output("y").Node("q", tt.op, []string{"x"}, "y"))
			err := m.Check(SupportedOps)
			var got string
			if err != nil {
				got = err.Error()
			}
			if (tt.wantErr == "") != (err == nil) || !strings.Contains(got, tt.wantErr) {
				t.Errorf("opset %d: error %q, want one containing %q", tt.opset, got, tt.wantErr)
			}
		})
	}
}
