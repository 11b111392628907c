package sram

// resetCycles is how long every run holds rst high at the start.
const resetCycles = 2

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}
