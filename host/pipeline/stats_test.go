package pipeline

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Stages of 1, 3 and 2 ms on four packets: free-running they take
// Σd + (N−1)·max d = 6 + 3·3 = 15 ms for 24 ms of stage time.
func TestSummary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, st, err := chain(3, constant(1, 3, 2)).Run(t.Context(), inputs(4), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := "" +
			"pipeline  free-running, capacity 1: 3 stages, 4 packets (4 done, 0 failed)\n" +
			"stage     s0 4 packets, 0 failed, busy 4ms (1000.0/s)\n" +
			"stage     s1 4 packets, 0 failed, busy 12ms (333.3/s)\n" +
			"stage     s2 4 packets, 0 failed, busy 8ms (500.0/s)\n" +
			"wall      15ms for 24ms of stage time: overlap 1.60×, 266.7 packets/s; bottleneck s1"
		if d := cmp.Diff(want, st.Summary()); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
}

func TestRound(t *testing.T) {
	cases := []struct{ in, want time.Duration }{
		{999, 999},
		{12345, 12350},
		{88005242, 88010000},
		{1948959918, 1949000000},
		{3 * time.Hour, 3 * time.Hour},
	}
	for _, c := range cases {
		if got := round(c.in); got != c.want {
			t.Errorf("round(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
