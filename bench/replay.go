package bench

import (
	"math/big"
	"strings"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/sim"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verify"
)

// Lap is the time a phase took: wall clock and CPU time. CPU time is
// what the comparisons use: on a busy machine the wall clock also counts
// the time the simulator waited for a core.
type Lap = verify.Lap

// replayGo runs the first cycles of st on s (fresh, built for d) and
// returns the time of each phase (clipped to cycles; zero for phases not
// reached) and the final outputs.
func replayGo(d *hdl.Design, s *sim.Sim, st *Recording, cycles int) ([]Lap, string, error) {
	names := make([]string, len(st.Inputs))
	for i, p := range st.Inputs {
		names[i] = p.Name
	}
	chs := changes(st.Stimulus)
	laps := make([]Lap, len(st.Phases))
	ci := 0
	for pi, ph := range st.Phases {
		end := min(ph.End, cycles)
		w0, c0 := time.Now(), processCPU()
		for c := ph.Start; c < end; c++ {
			for ; ci < len(chs) && chs[ci].Cycle == c; ci++ {
				ch := chs[ci]
				if err := s.PokeBig(names[ch.Port], ch.Value); err != nil {
					return nil, "", err
				}
			}
			s.Step(1)
		}
		if end > ph.Start {
			laps[pi] = Lap{Wall: time.Since(w0), CPU: processCPU() - c0}
		}
	}
	out, err := goOutputs(d, s)
	return laps, out, err
}

// goOutputs formats every output of the top in hex, space-separated.
func goOutputs(d *hdl.Design, s *sim.Sim) (string, error) {
	_, outputs := stim.Ports(d)
	parts := make([]string, len(outputs))
	for i, p := range outputs {
		v, err := s.PeekBig(p.Name)
		if err != nil {
			return "", err
		}
		parts[i] = hexWidth(v, p.Type.Width)
	}
	return strings.Join(parts, " "), nil
}

func hexWidth(v *big.Int, w int) string {
	s := v.Text(16)
	if n := (w + 3) / 4; len(s) < n {
		s = strings.Repeat("0", n-len(s)) + s
	}
	return s
}
