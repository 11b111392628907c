package stim

// Poker is what RunRandom drives: a simulator's input ports and clock.
type Poker interface {
	PokeWords(port string, w []uint64) error
	Step(n int)
}

// RunRandom runs cycles of the random stimulus of seed (RandomSource) on s,
// without holding it or allocating per cycle; every 1024 cycles it calls
// tick (if not nil) with the cycles done so far, which may stop the run
// by returning an error. It is hwgen sim --top's loop, and the benchmark
// times it as such.
func RunRandom(s Poker, inputs []Port, seed uint64, cycles int, tick func(done int) error) error {
	src := NewRandomSource(inputs, seed)
	row := make([][]uint64, len(inputs))
	for i, p := range inputs {
		row[i] = make([]uint64, (p.Type.Width+63)/64)
	}
	for c := 0; c < cycles; c++ {
		if tick != nil && c%1024 == 0 {
			if err := tick(c); err != nil {
				return err
			}
		}
		src.NextWords(row)
		for i, w := range row {
			if err := s.PokeWords(inputs[i].Name, w); err != nil {
				return err
			}
		}
		s.Step(1)
	}
	return nil
}
