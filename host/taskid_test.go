package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hardware's task IDs wrap modulo 2^id_bits: a started or completed
// task's ID names the latest pushed task of its queue with that ID (a
// ResNet-50 program has 69,630 tasks; before, the tasks past 65,535 were
// taken for early ones on the timeline). Here with 4-bit IDs.
func TestTaskOfWrappedID(t *testing.T) {
	qt := make([]int, 100)
	for i := range qt {
		qt[i] = 1000 + i // program task numbers
	}
	r := &hostRun{mask: 0xF, qt: [][]int{qt}, base: make([]uint64, 1), nextOf: []int{0}}
	cases := []struct {
		pushed int
		hwid   uint64
		want   int
	}{
		{8, 7, 1007},
		{16, 15, 1015},
		{17, 0, 1016},
		{40, 7, 1039},
		{40, 8, 1024},
		{100, 3, 1099},
	}
	for _, tc := range cases {
		r.nextOf[0] = tc.pushed
		got, err := r.task(0, tc.hwid)
		if err != nil {
			t.Fatalf("pushed %d, id %d: %v", tc.pushed, tc.hwid, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("pushed %d, id %d: (-want +got) %s", tc.pushed, tc.hwid, diff)
		}
	}
	r.nextOf[0] = 5
	if _, err := r.task(0, 9); err == nil {
		t.Errorf("ID 9 with 5 tasks pushed: no error")
	}
}
