package bench

import (
	"syscall"
	"time"
	"unsafe"
)

// processCPU is the CPU time of this process so far, all threads (the
// garbage collector's included): CLOCK_PROCESS_CPUTIME_ID.
func processCPU() time.Duration {
	var ts syscall.Timespec
	const clockProcessCPUTimeID = 2
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
