package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hwgen/hwgen/frontend/onnx/onnxtest"
)

// Class scores get a top-1 line; a feature map does not.
func TestScoresShape(t *testing.T) {
	cases := []struct {
		shape []int
		want  bool
	}{
		{[]int{1, 1000}, true},
		{[]int{1000}, true},
		{[]int{3, 10}, true},
		{[]int{1, 10, 1, 1}, true},
		{[]int{1, 4, 5, 5}, false},
		{[]int{2, 4, 5}, false},
	}
	var got, want []bool
	for _, c := range cases {
		got, want = append(got, scoresShape(c.shape)), append(want, c.want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scoresShape (-want +got):\n%s", d)
	}
}

func TestRunFeatureMapOutput(t *testing.T) {
	w := make([]float32, 4*2*3*3)
	for i := range w {
		w[i] = float32(i%7-3) / 10
	}
	b := onnxtest.New(13).Input("x", 1, 2, 6, 6).Output("y").Float("w", []int64{4, 2, 3, 3}, w...).
		Node("conv", "Conv", []string{"x", "w"}, "y", onnxtest.Ints("pads", 1, 1, 1, 1))
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "features.onnx")
	if err := os.WriteFile(model, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := capture(t, "run", "--model", model)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	for _, want := range []string{"float     [1 4 6 6], values", "vs float  output; max |int32 − float|", "result    PASS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "top-1") {
		t.Errorf("a feature map output has a top-1 line:\n%s", stdout)
	}
}
