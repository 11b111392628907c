package machine

import (
	"errors"
	"strings"
	"testing"

	"github.com/hwgen/hwgen/isa/planar"
)

// The reference machine refuses a task using a planar feature its sizes
// leave out (ErrFn, naming the feature, touching nothing) and runs it
// when the feature is there; leaving one feature out refuses only its
// tasks.
func TestMissingFeatures(t *testing.T) {
	tasks := map[string]planar.Task{
		"pool_avg":    {Op: planar.OpPool, Fn: planar.FnPoolAvg, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, KH: 2, KW: 2, Stride: 2, Scale: 1},
		"eltwise_mul": {Op: planar.OpEltwise, Fn: planar.FnMul, Mask: 3, Src: 0, Src2: 4, Dst: 12, H: 1, W: 2, Scale: 1},
		"postfn":      {Op: planar.OpReduce, Mask: 1, Src: 0, Dst: 12, H: 2, W: 2, Scale: 1, Post: planar.PostRecip},
	}
	for _, f := range planar.Features {
		s := tinySizes()
		switch f.Name {
		case "pool_avg":
			s.Planar.NoPoolAvg = true
		case "eltwise_mul":
			s.Planar.NoEltwiseMul = true
		case "postfn":
			s.Planar.NoPostFn = true
		}
		if !f.Missing(s.Planar) {
			t.Fatalf("%s: not missing from %+v", f.Name, s.Planar)
		}
		for name, task := range tasks {
			m, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			m.planar.State[0][0], m.planar.State[1][4] = 5, 7
			err = m.planarTask(task)
			if name != f.Name {
				if err != nil {
					t.Errorf("without %s, %s: %v", f.Name, name, err)
				}
				continue
			}
			if !errors.Is(err, planar.ErrTask) || planar.FirstCode(err) != planar.ErrFn || !strings.Contains(err.Error(), "no "+f.Name) {
				t.Errorf("without %s: error %v, want ErrFn naming it", f.Name, err)
			}
			if m.planar.State[0][12] != 0 {
				t.Errorf("without %s: the refused task wrote %d", f.Name, m.planar.State[0][12])
			}
		}
	}
}
