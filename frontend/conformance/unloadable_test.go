package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A folder of tests whose models the loader refuses (damaged, or of an
// opset or IR version it does not read) is not silently empty: the tests
// of mapped ops are listed as unsupported with the loader's reason, and
// folders of other ops stay out.
func TestUnloadableTestsListed(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"test_relu_damaged":   "not protobuf \xff\xff",
		"test_maxpool_future": "\x08\x63", // ir_version 99, no graph
		"test_einsum_damaged": "not protobuf \xff\xff",
	} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "model.onnx"), []byte(data), 0o644)
	}
	dirs, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	rs := RunAll(dirs, func(c *Case) Result { t.Fatalf("%s loaded", c.Name); return Result{} })
	type row struct{ Name, Op, Status string }
	var got []row
	for _, r := range rs {
		got = append(got, row{r.Name, r.Op, r.Status.String()})
		if r.Detail == "" {
			t.Errorf("%s: no reason given", r.Name)
		}
	}
	slices.SortFunc(got, func(a, b row) int { return strings.Compare(a.Name, b.Name) })
	want := []row{{"test_maxpool_future", "MaxPool", "unsupported"}, {"test_relu_damaged", "Relu", "unsupported"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed tests (-want +got):\n%s", diff)
	}
}
