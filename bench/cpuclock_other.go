//go:build !linux

package bench

import "time"

var start = time.Now()

// processCPU falls back to the wall clock where the process CPU clock is
// not wired up.
func processCPU() time.Duration { return time.Since(start) }
