package partition

import (
	"math/rand/v2"
	"testing"
)

// values draws a [c][h][w] int8 map whose value at (y, x) is non-zero
// with probability dens(y, x).
func values(seed uint64, c, h, w int, dens func(y, x int) float64) []int8 {
	r := rand.New(rand.NewPCG(seed, 7))
	v := make([]int8, c*h*w)
	for ch := 0; ch < c; ch++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if r.Float64() < dens(y, x) {
					v[(ch*h+y)*w+x] = int8(r.IntN(255) - 127) // never 0
					if v[(ch*h+y)*w+x] == 0 {
						v[(ch*h+y)*w+x] = 1
					}
				}
			}
		}
	}
	return v
}

func uniform(d float64) func(int, int) float64 { return func(int, int) float64 { return d } }

// skewed has mean density about d, rising from the top left to the bottom
// right (from d/5 to 9d/5), so equal areas are far from equal work.
func skewed(d float64, h, w int) func(int, int) float64 {
	return func(y, x int) float64 {
		f := (float64(y)/float64(h) + float64(x)/float64(w)) / 2
		return min(1, d*(0.2+1.6*f))
	}
}

// blobs is mostly zero (density lo) with dense squares (density hi).
func blobs(lo, hi float64) func(int, int) float64 {
	return func(y, x int) float64 {
		if (y/8+x/16)%5 == 0 {
			return hi
		}
		return lo
	}
}

func mustMap(t *testing.T, c, h, w int, v []int8) *Map {
	t.Helper()
	m, err := FromValues(c, h, w, v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
