package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hwgen/hwgen/frontend/lower"
	"github.com/hwgen/hwgen/frontend/onnx"
	"github.com/hwgen/hwgen/golden"
)

// qualityFlags choose how much of the quantization quality hwgen run
// prints; the summary line is always there.
type qualityFlags struct {
	Layers bool `help:"Print one line per lowered layer: its share of int8 values at ±127 (saturated) and the SQNR of its dequantized int8 output against the float executor's value of the same ONNX tensor, on the run's input. Also list every requantized layer's scales and shift (listed anyway up to 16 layers). Without it only the summaries: the worst layer SQNR, the highest saturation and the logits' SQNR; the worst multiplier error."`
}

// printQuality prints the input-range warning, the per-layer lines (with
// --layers) and the summary: golden holds the int8 value of every lowered
// ONNX value on input x (compiler.Graph.ReferenceOf), env the float
// executor's, deq the dequantized logits of the run.
func printQuality(w io.Writer, net *lower.Net, x *onnx.Array, golden map[string]*golden.Tensor, env map[string]*onnx.Array, deq *onnx.Array, perLayer bool) {
	if n, limit, peak := net.InputBeyond(x); n > 0 {
		fmt.Fprintf(w, "warning   the input is beyond the calibrated input range ±%.4g in %s of its elements (its largest |value| %.4g): they clamp at ±127; calibrate on inputs like it (--calib)\n",
			limit, share(n, len(x.Data)), peak)
	}
	qs := net.Quality(golden, env)
	worst, sat := -1, -1
	for i, q := range qs {
		if perLayer {
			fmt.Fprintf(w, "quality   %-24s %s\n", q.Name, describeQuality(q))
		}
		if worst < 0 || q.SQNR < qs[worst].SQNR {
			worst = i
		}
		if !q.Int32 && (sat < 0 || ratio(q.Saturated, q.Elements) > ratio(qs[sat].Saturated, qs[sat].Elements)) {
			sat = i
		}
	}
	probs := lower.SQNR(env[net.Output()].Data, func(i int) float64 { return float64(deq.Data[i]) })
	logits, note := probs, ""
	if name, scale, ok := net.Logits(); ok && golden[name] != nil && env[name] != nil {
		// A Softmax's probabilities of random-weight logits are nearly
		// one-hot and hide the logits' error: its input is measured.
		q := golden[name]
		logits = lower.SQNR(env[name].Data, func(i int) float64 { return float64(q.Data[i]) * scale })
		note = fmt.Sprintf(" (the Softmax's input %s; its probabilities %s)", name, dB(probs))
	}
	var parts []string
	if worst >= 0 {
		parts = append(parts, fmt.Sprintf("worst layer SQNR %s (%s)", dB(qs[worst].SQNR), qs[worst].Name))
	}
	if sat >= 0 {
		parts = append(parts, fmt.Sprintf("highest saturation %s (%s)", share(qs[sat].Saturated, qs[sat].Elements), qs[sat].Name))
	}
	parts = append(parts, "logits SQNR "+dB(logits)+note)
	hint := "; --layers lists each"
	if perLayer {
		hint = ""
	}
	fmt.Fprintf(w, "quality   over %d layers: %s (the NPU's values dequantized, against the float executor's on this input%s)\n", len(qs), strings.Join(parts, ", "), hint)
}

// describeQuality is one layer's line after its name.
func describeQuality(q lower.Quality) string {
	if q.Int32 {
		return fmt.Sprintf("SQNR %s, int32 output (no saturation), %d elements", dB(q.SQNR), q.Elements)
	}
	return fmt.Sprintf("SQNR %s, saturated %s", dB(q.SQNR), share(q.Saturated, q.Elements))
}

func ratio(k, n int) float64 { return float64(k) / float64(max(n, 1)) }

// dB formats a ratio in decibels; an exact match is "exact".
func dB(v float64) string {
	if math.IsInf(v, 1) {
		return "exact (+Inf dB)"
	}
	return fmt.Sprintf("%.1f dB", v)
}
