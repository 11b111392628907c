package pipeline_test

import (
	"context"
	"fmt"
	"math"

	"github.com/hwgen/hwgen/host/pipeline"
)

// Three stages of different types, as a host runs a classifier: quantize
// the input, run it, pick the class. The NaN packet fails at pre; the
// others come out in order.
func Example() {
	pre := pipeline.NewStage("pre", func(ctx context.Context, x []float64) ([]int8, error) {
		q := make([]int8, len(x))
		for i, v := range x {
			if math.IsNaN(v) {
				return nil, fmt.Errorf("element %d is NaN", i)
			}
			q[i] = int8(math.RoundToEven(v * 127))
		}
		return q, nil
	})
	exec := pipeline.NewStage("exec", func(ctx context.Context, q []int8) ([]int32, error) {
		out := make([]int32, len(q))
		for i, v := range q {
			out[i] = int32(v) * int32(i+1) // stands in for the device
		}
		return out, nil
	})
	post := pipeline.NewStage("post", func(ctx context.Context, y []int32) (int, error) {
		best := 0
		for i, v := range y {
			if v > y[best] {
				best = i
			}
		}
		return best, nil
	})
	p := pipeline.Then(pipeline.Then(pipeline.New(pre), exec), post)
	in := [][]float64{{0.9, 0.1, 0.2}, {0.1, math.NaN(), 0}, {0.1, 0.5, 0.2}}
	results, stats, err := p.Run(context.Background(), in, pipeline.Options{Mode: pipeline.LockStep})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Println(r.Err)
			continue
		}
		fmt.Printf("packet %d: class %d\n", r.Packet, r.Value)
	}
	fmt.Printf("%d packets through %d stages in %d periods\n", stats.Packets, len(stats.Stages), len(stats.Periods))
	// Output:
	// packet 0: class 0
	// packet 1: stage pre: element 1 is NaN
	// packet 2: class 1
	// 3 packets through 3 stages in 5 periods
}
