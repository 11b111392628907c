package verify

import (
	"math/big"
	"math/rand/v2"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/stim"
)

// The stimulus types live in package stim, below both verify and host
// (which records its runs); these names let a cross-check be written with
// verify alone.
type (
	Port         = stim.Port
	Stimulus     = stim.Stimulus
	Drive        = stim.Drive
	RandomSource = stim.RandomSource
	Recorder     = stim.Recorder
)

// Ports is stim.Ports.
func Ports(d *hdl.Design) (inputs, outputs []Port) { return stim.Ports(d) }

// Generate is stim.Generate.
func Generate(d *hdl.Design, n int, f func(cycle int, in *Drive)) (*Stimulus, error) {
	return stim.Generate(d, n, f)
}

// Random is stim.Random.
func Random(d *hdl.Design, n int, seed uint64) *Stimulus { return stim.Random(d, n, seed) }

// NewRandomSource is stim.NewRandomSource.
func NewRandomSource(inputs []Port, seed uint64) *RandomSource {
	return stim.NewRandomSource(inputs, seed)
}

// RandomValue is stim.RandomValue.
func RandomValue(r *rand.Rand, t hdl.Type) *big.Int { return stim.RandomValue(r, t) }

// NewRecorder is stim.NewRecorder.
func NewRecorder(d *hdl.Design) (*Recorder, error) { return stim.NewRecorder(d) }
