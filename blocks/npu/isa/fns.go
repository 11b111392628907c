package isa

import (
	"fmt"

	"github.com/hwgen/hwgen/blocks/planar"
	"github.com/hwgen/hwgen/golden"
)

// The planar engine's function codes of the golden models' operations:
// the one mapping between what the compiler and the reference machine
// compute (golden) and what the hardware is told (planar.Fn).
var (
	eltFns = map[golden.EltOp]planar.Fn{golden.EltAdd: planar.FnAdd, golden.EltSub: planar.FnSub,
		golden.EltMul: planar.FnMul, golden.EltMax: planar.FnMax, golden.EltMin: planar.FnMin}
	poolFns   = map[golden.PoolKind]planar.Fn{golden.PoolMax: planar.FnPoolMax, golden.PoolAvg: planar.FnPoolAvg, golden.PoolMin: planar.FnPoolMin}
	reduceFns = map[golden.ReduceKind]planar.Fn{golden.ReduceSum: planar.FnSum, golden.ReduceMax: planar.FnRedMax}
)

// EltFn is the planar function code of an elementwise operation.
func EltFn(op golden.EltOp) (planar.Fn, error) { return fnOf("elementwise function", eltFns, op) }

// PoolFn is the planar function code of a pooling kind.
func PoolFn(k golden.PoolKind) (planar.Fn, error) { return fnOf("pooling kind", poolFns, k) }

// ReduceFn is the planar function code of a reduction.
func ReduceFn(k golden.ReduceKind) (planar.Fn, error) { return fnOf("reduction", reduceFns, k) }

// EltOpOf, PoolKindOf and ReduceKindOf map a planar function code back
// to its golden operation (for the reference machine).
func EltOpOf(f planar.Fn) (golden.EltOp, error)           { return opOf("elementwise", eltFns, f) }
func PoolKindOf(f planar.Fn) (golden.PoolKind, error)     { return opOf("pooling", poolFns, f) }
func ReduceKindOf(f planar.Fn) (golden.ReduceKind, error) { return opOf("reduction", reduceFns, f) }

func fnOf[K comparable](what string, m map[K]planar.Fn, k K) (planar.Fn, error) {
	if f, ok := m[k]; ok {
		return f, nil
	}
	return 0, fmt.Errorf("the planar engine has no %s %v", what, k)
}

func opOf[K comparable](what string, m map[K]planar.Fn, f planar.Fn) (K, error) {
	for k, v := range m {
		if v == f {
			return k, nil
		}
	}
	var zero K
	return zero, fmt.Errorf("planar %s function code %d is unknown", what, f)
}
