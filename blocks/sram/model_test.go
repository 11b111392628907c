package sram

// Go reference models of the buffers. They work at the level of the
// documented interface: which requests are accepted in a cycle (the
// round-robin lane allocation of the package documentation), what every
// accepted read returns, and what the arrays hold.

// rrModel is the documented arbitration: greedy lane allocation in a
// rotating order starting at ptr; ptr moves to the first refused client.
type rrModel struct{ n, ptr int }

func (a *rrModel) grant(valid []bool, mask []uint64) []bool {
	g := make([]bool, a.n)
	var used uint64
	for j := range a.n {
		i := (a.ptr + j) % a.n
		if valid[i] && mask[i]&used == 0 {
			g[i] = true
			used |= mask[i]
		}
	}
	return g
}

func (a *rrModel) advance(valid, g []bool) {
	for j := range a.n {
		if i := (a.ptr + j) % a.n; valid[i] && !g[i] {
			a.ptr = i
			return
		}
	}
}

func lanesOf(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// stateModel holds the contents of every bank.
type stateModel struct {
	cfg  StateConfig
	mem  [][]uint64 // [partition][address]
	rarb rrModel
	warb rrModel
}

func newStateModel(cfg StateConfig) *stateModel {
	shared, _ := cfg.readPorts()
	s := &stateModel{cfg: cfg, rarb: rrModel{n: len(shared)}, warb: rrModel{n: len(StateWriteClients)}}
	for range cfg.Partitions {
		s.mem = append(s.mem, make([]uint64, cfg.Depth))
	}
	return s
}

// read returns the vector a read of addr with mask delivers: the word of
// every partition in mask, 0 elsewhere.
func (s *stateModel) read(addr int, mask uint64) []uint64 {
	out := make([]uint64, s.cfg.Partitions)
	for p := range out {
		if mask>>p&1 == 1 {
			out[p] = s.mem[p][addr]
		}
	}
	return out
}

func (s *stateModel) write(addr int, mask uint64, data []uint64) {
	for p := range s.cfg.Partitions {
		if mask>>p&1 == 1 {
			s.mem[p][addr] = data[p] & lanesOf(s.cfg.ElemWidth)
		}
	}
}

// psumModel holds the accumulators and the clear engine.
type psumModel struct {
	cfg   PsumConfig
	mem   [][]uint64 // [partition][entry], A-bit patterns
	arb   rrModel    // client 0: accumulating write, client 1: read-out
	left  int        // zero writes still to do
	caddr int        // next entry the clear zeroes
}

func newPsumModel(cfg PsumConfig) *psumModel {
	s := &psumModel{cfg: cfg, arb: rrModel{n: 2}}
	for range cfg.Partitions {
		s.mem = append(s.mem, make([]uint64, cfg.Depth))
	}
	return s
}

func (s *psumModel) read(addr int, mask uint64) []uint64 {
	out := make([]uint64, s.cfg.Partitions)
	for k := range out {
		if mask>>k&1 == 1 {
			out[k] = s.mem[k][addr]
		}
	}
	return out
}

// write overwrites or accumulates (modulo 2^A) the lanes in mask.
func (s *psumModel) write(addr int, acc bool, mask uint64, data []uint64) {
	m := lanesOf(s.cfg.AccWidth)
	for k := range s.cfg.Partitions {
		if mask>>k&1 == 0 {
			continue
		}
		if acc {
			s.mem[k][addr] = (s.mem[k][addr] + data[k]) & m
		} else {
			s.mem[k][addr] = data[k] & m
		}
	}
}
