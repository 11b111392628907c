package main

import (
	"regexp"
	"strings"
	"testing"
)

// The iCE40 floor configurations (examples/ice40, docs/notes/ppa.md "An
// NPU on an iCE40": the smallest 4×4 and 1×1 int8 NPUs that run mnist-7)
// are valid NPU configurations that compile and run mnist-7 with PASS on
// the reference machine, on the first MNIST test images, every one
// classified as the float model does. Their synthesis is not run here
// (minutes of Yosys and nextpnr).
func TestIce40Examples(t *testing.T) {
	for _, tc := range []struct {
		file, npu string
	}{
		{"mnist7-4x4.json", "npu_4x4_e8a24_s256p256w64_pl1_lt"},
		{"mnist7-1x1.json", "npu_1x1_e8a24_s1024p256w16_lt"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := capture(t, "run", "--config", "../../examples/ice40/"+tc.file, "--model", mnistModel,
				"--data", "mnist", "--images", "3", "--calib-images", "100", "--engine", "interp")
			if code != exitOK {
				t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
			}
			for _, want := range []string{"npu       " + tc.npu, "result    PASS: on each of the 3 images", "agree on 100.00% (3/3)"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			if acc := regexp.MustCompile(`int8 top-1 \S+ \((\d+)/3\)`).FindStringSubmatch(stdout); acc == nil || acc[1] != "3" {
				t.Errorf("int8 accuracy %v, want 3/3:\n%s", acc, stdout)
			}
		})
	}
}

// The 1×1 file placed on the HX8K (no performance counters, no planar
// checks) runs mnist-7 on the Go simulator with PASS and says its MACs
// are not counted rather than printing 0.
func TestIce40OneByOneSimulated(t *testing.T) {
	code, stdout, stderr := capture(t, "run", "--config", "../../examples/ice40/mnist7-1x1.json", "--model", mnistModel,
		"--data", "mnist", "--images", "1", "--calib-images", "100", "--engine", "go")
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"result    PASS: on each of the 1 images", "cycles    per image 826122 ",
		"MACs      not counted: the NPU has no performance counters (perf_counters false)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// hwgen sim on an NPU without performance counters says so instead of
// printing engines 0% busy.
func TestSimWithoutCounters(t *testing.T) {
	code, stdout, stderr := capture(t, "sim", "--set", "perf_counters=false")
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr: %s\nstdout:\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "MACs      not counted, nor the engines' busy cycles") || !strings.Contains(stdout, "result    PASS") {
		t.Errorf("output lacks the not-counted line or PASS:\n%s", stdout)
	}
	for _, bad := range []string{"busy      ", "overlap   "} {
		if strings.Contains(stdout, bad) {
			t.Errorf("output has a %q line of zeros:\n%s", strings.TrimSpace(bad), stdout)
		}
	}
}
