package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cyclesOf reads the cycles line of `hwgen sim --accel sparse`.
func cyclesOf(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^cycles\s+(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no cycles line in:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// A conv on the sparse engine passes the golden check and reports per-unit
// busy, the multiplications against the dense MACs and the imbalance;
// on a skewed map the balanced split beats equal-area.
func TestSimSparse(t *testing.T) {
	base := []string{"sim", "--op", "conv2d", "--c", "4", "--h", "16", "--w", "12", "--cout", "8", "--kernel", "3",
		"--accel", "sparse", "--units", "2", "--set", "sparse_lanes=8", "--zeros", "70", "--spread", "skewed"}
	cycles := map[string]int{}
	for _, split := range []string{"balanced", "equal-area"} {
		code, out, errs := capture(t, append(base, "--split", split)...)
		if code != exitOK {
			t.Fatalf("--split %s: exit %d\n%s%s", split, code, out, errs)
		}
		for _, want := range []string{"result    PASS", "units     u0 ", "u1 ", "mults     ", "balance   ", "split     " + split} {
			if !strings.Contains(out, want) {
				t.Errorf("--split %s: output lacks %q:\n%s", split, want, out)
			}
		}
		if m := regexp.MustCompile(`mults\s+(\d+) performed \(non-zero inputs × non-zero weights: (\d+) expected\)`).FindStringSubmatch(out); m == nil || m[1] != m[2] {
			t.Errorf("--split %s: multiplications differ from the expected count: %v", split, m)
		}
		cycles[split] = cyclesOf(t, out)
	}
	if cycles["balanced"] >= cycles["equal-area"] {
		t.Errorf("skewed map: balanced %d cycles, equal-area %d: balancing should pay", cycles["balanced"], cycles["equal-area"])
	}
}

// Flags that do not apply to the sparse engine, or that need it, are
// usage errors naming the flag.
func TestSimSparseUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--op", "gemm", "--accel", "sparse"}, "runs conv2d"},
		{[]string{"sim", "--op", "conv2d", "--units", "2"}, "--units"},
		{[]string{"sim", "--op", "conv2d", "--accel", "sparse", "--engines", "2"}, "--engines"},
		{[]string{"sim", "--op", "conv2d", "--accel", "sparse", "--set", "sparse_lanes=0"}, "sparse_lanes = 0"},
		{[]string{"sim", "--op", "conv2d", "--accel", "sparse", "--stride", "3"}, "stride = 3"},
		{[]string{"sim", "--op", "pool", "--spread", "skewed"}, "spread"},
		{[]string{"sim", "--op", "conv2d", "--accel", "sparse", "--relu"}, "--relu"},
		{[]string{"sim", "--op", "conv2d", "--accel", "sparse", "--shift", "9"}, "--shift"},
	}
	for _, tc := range cases {
		code, out, errs := capture(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("hwgen %s: exit %d, stderr %q (stdout %q); want exit %d naming %q", strings.Join(tc.args, " "), code, errs, out, exitUsage, tc.want)
		}
	}
}

// --accel auto sends a very sparse conv to the sparse engine and a dense
// one to the NE, saying why; both pass the golden check.
func TestSimAccelAuto(t *testing.T) {
	for _, tc := range []struct{ zeros, pick string }{{"95", "sparse"}, {"0", "npu"}} {
		code, out, errs := capture(t, "sim", "--op", "conv2d", "--c", "16", "--h", "12", "--w", "12", "--cout", "16",
			"--zeros", tc.zeros, "--spread", "input", "--accel", "auto")
		if code != exitOK {
			t.Fatalf("zeros %s: exit %d\n%s%s", tc.zeros, code, out, errs)
		}
		if !strings.Contains(out, "accel     auto: "+tc.pick+" (input density") || !strings.Contains(out, "result    PASS") {
			t.Errorf("zeros %s: want the %s engine picked, with its reason, and PASS:\n%s", tc.zeros, tc.pick, out)
		}
	}
}
