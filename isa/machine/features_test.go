package machine

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hwgen/hwgen/isa/planar"
)

// without is s lacking the named planar feature.
func without(t *testing.T, s planar.Sizes, name string) planar.Sizes {
	f := planar.FeatureNamed(name)
	if f == nil {
		t.Fatalf("no feature %s", name)
	}
	f.Omit(&s)
	return s
}

// The reference machine refuses a task using a planar feature its sizes
// leave out (ErrFn, naming the feature, touching nothing) and runs it
// when the feature is there; leaving one feature out refuses only the
// tasks that use it (a whole op's feature its sub-feature's tasks too).
func TestMissingFeatures(t *testing.T) {
	tasks := map[string]planar.Task{
		"pool_avg":    {Op: planar.OpPool, Fn: planar.FnPoolAvg, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, KH: 2, KW: 2, Stride: 2, Scale: 1},
		"pool_min":    {Op: planar.OpPool, Fn: planar.FnPoolMin, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, KH: 2, KW: 2, Stride: 2, Scale: 1},
		"pool_max":    {Op: planar.OpPool, Fn: planar.FnPoolMax, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, KH: 2, KW: 2, Stride: 2, Scale: 1},
		"eltwise":     {Op: planar.OpEltwise, Fn: planar.FnAdd, Mask: 3, Src: 0, Src2: 4, Dst: 12, H: 1, W: 2, Scale: 1},
		"eltwise_abs": {Op: planar.OpEltwise, Fn: planar.FnAbs, Mask: 3, Src: 0, Dst: 12, H: 1, W: 2, Scale: 1},
		"eltwise_mul": {Op: planar.OpEltwise, Fn: planar.FnMul, Mask: 3, Src: 0, Src2: 4, Dst: 12, H: 1, W: 2, Scale: 1},
		"reduce":      {Op: planar.OpReduce, Fn: planar.FnRowMax, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, Scale: 1},
		"postfn":      {Op: planar.OpReduce, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, Scale: 1, Post: planar.PostRecip},
		"act":         {Op: planar.OpAct, Mask: 3, Src: 0, Dst: 12, H: 1, W: 2, Scale: 3, Shift: 1, Relu: true},
	}
	refuses := map[string][]string{
		"pool_avg":    {"pool_avg"},
		"pool_min":    {"pool_min"},
		"eltwise":     {"eltwise", "eltwise_abs", "eltwise_mul"},
		"eltwise_mul": {"eltwise_mul"},
		"reduce":      {"postfn", "reduce"},
		"postfn":      {"postfn"},
	}
	for _, f := range planar.Features {
		t.Run(f.Name, func(t *testing.T) {
			s := tinySizes()
			s.Planar = without(t, s.Planar, f.Name)
			if !f.Missing(s.Planar) {
				t.Fatalf("not missing from %+v", s.Planar)
			}
			var refused []string
			for name, task := range tasks {
				m, err := New(s)
				if err != nil {
					t.Fatal(err)
				}
				m.planar.State[0][0], m.planar.State[1][4] = 5, 7
				err = m.planarTask(task)
				if err == nil {
					continue
				}
				refused = append(refused, name)
				if !errors.Is(err, planar.ErrTask) || planar.FirstCode(err) != planar.ErrFn || !strings.Contains(err.Error(), "no "+f.Name+" ") {
					t.Errorf("%s: error %v, want ErrFn naming %s", name, err, f.Name)
				}
				if m.planar.State[0][12] != 0 {
					t.Errorf("%s: the refused task wrote %d", name, m.planar.State[0][12])
				}
			}
			sort.Strings(refused)
			if d := cmp.Diff(refuses[f.Name], refused); d != "" {
				t.Errorf("the tasks refused (-want +got):\n%s", d)
			}
		})
	}
}
