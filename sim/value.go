package sim

import (
	"encoding/binary"
	"math/big"
)

// bigToWords stores the w-bit pattern of v (two's complement when
// negative, wrapped to w bits) in d.
func bigToWords(d []uint64, v *big.Int, w int) {
	m := new(big.Int).Lsh(big.NewInt(1), uint(w))
	m.Sub(m, big.NewInt(1))
	x := new(big.Int).And(v, m)
	buf := make([]byte, 8*len(d))
	x.FillBytes(buf)
	for i := range d {
		d[i] = binary.BigEndian.Uint64(buf[8*(len(d)-1-i):])
	}
}

// wordsToBig returns the unsigned value of the words.
func wordsToBig(a []uint64) *big.Int {
	buf := make([]byte, 8*len(a))
	for i, x := range a {
		binary.BigEndian.PutUint64(buf[8*(len(a)-1-i):], x)
	}
	return new(big.Int).SetBytes(buf)
}
