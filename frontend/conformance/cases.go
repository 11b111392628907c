package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hwgen/hwgen/frontend/onnx"
)

// DefaultDir is where Debian's libonnx-testdata puts the node tests.
const DefaultDir = "/usr/share/libonnx-testdata/data/node"

// Ops are the operators whose tests the runner takes, in table order:
// those onnx.OpTable marks Conformance (a test keeps mappers in step).
var Ops = onnx.OpNames(func(o onnx.Op) bool { return o.Conformance })

// Case is one node test: its model and first data set.
type Case struct {
	Name    string // the test directory's name (test_qlinearconv)
	Op      string
	Model   *onnx.Model
	Inputs  []*onnx.Tensor // in graph-input order
	Outputs []*onnx.Tensor // expected, in graph-output order
}

// Find lists the test directories under dir whose model is one node of
// an op in Ops, sorted by op (in Ops order), then name.
func Find(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	type found struct {
		op   int
		path string
	}
	var tests []found
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "test_") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		m, err := onnx.LoadFile(filepath.Join(path, "model.onnx"))
		if err != nil {
			// A test of one of our ops (by its name) whose model the
			// reader refuses (an opset outside 1..21, say) is listed:
			// RunAll reports it unsupported with the loader's reason,
			// instead of the run silently having fewer tests.
			if i := opOfName(e.Name()); i >= 0 {
				tests = append(tests, found{i, path})
			}
			continue
		}
		if len(m.Graph.Nodes) == 0 {
			continue // not one of our ops' tests
		}
		if i := slices.Index(Ops, m.Graph.Nodes[0].OpType); i >= 0 && m.Graph.Nodes[0].Domain == "" {
			tests = append(tests, found{i, path})
		}
	}
	slices.SortFunc(tests, func(a, b found) int {
		if a.op != b.op {
			return a.op - b.op
		}
		return strings.Compare(a.path, b.path)
	})
	paths := make([]string, len(tests))
	for i, t := range tests {
		paths[i] = t.path
	}
	return paths, nil
}

// Load reads the test in dir.
func Load(dir string) (*Case, error) {
	m, err := onnx.LoadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return nil, err
	}
	c := &Case{Name: filepath.Base(dir), Model: m}
	if len(m.Graph.Nodes) > 0 {
		c.Op = m.Graph.Nodes[0].OpType
	}
	data := filepath.Join(dir, "test_data_set_0")
	for i := range m.Graph.Inputs {
		t, err := onnx.LoadTensorFile(filepath.Join(data, fmt.Sprintf("input_%d.pb", i)))
		if errors.Is(err, fs.ErrNotExist) && m.Graph.Initializer(m.Graph.Inputs[i].Name) != nil {
			t = m.Graph.Initializer(m.Graph.Inputs[i].Name)
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		c.Inputs = append(c.Inputs, t)
	}
	for i := range m.Graph.Outputs {
		t, err := onnx.LoadTensorFile(filepath.Join(data, fmt.Sprintf("output_%d.pb", i)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		c.Outputs = append(c.Outputs, t)
	}
	return c, nil
}

// opOfName is the index in Ops of the op a test folder's name names
// (test_<op>[_...], the op in lower case), or -1.
func opOfName(name string) int {
	rest := strings.ToLower(strings.TrimPrefix(name, "test_"))
	best := -1
	for i, op := range Ops {
		o := strings.ToLower(op)
		if (rest == o || strings.HasPrefix(rest, o+"_")) && (best < 0 || len(o) > len(Ops[best])) {
			best = i
		}
	}
	return best
}

// OpOfName is the op a test folder's name names, or "".
func OpOfName(name string) string {
	if i := opOfName(name); i >= 0 {
		return Ops[i]
	}
	return ""
}
