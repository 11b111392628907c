package sparseconv

// StrideLog2 is the conv tasks' stride field: the stride's log2.
func (p *Program) StrideLog2() int64 {
	n := int64(0)
	for 1<<uint(n) < p.Conv.Stride {
		n++
	}
	return n
}
