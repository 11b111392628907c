package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/toolchain"
	"github.com/hwgen/hwgen/stim"
	"github.com/hwgen/hwgen/verilog"
)

// The Icarus side builds the stimulus into a testbench: the xorshift64
// sequence for the built-in designs, the input changes of a recording for
// the NPU (a $readmemh table of every cycle would cost vvp more than the
// design).

// tbHead opens module bench_tb: a register per input (starting at 0), a
// wire per output, and the design under test as dut.
func tbHead(b *strings.Builder, d *hdl.Design, decls string) {
	inputs, outputs := stim.Ports(d)
	b.WriteString("`timescale 1ns/1ps\nmodule bench_tb;\n" + decls)
	var conns []string
	if d.Info[d.Top].UsesClock {
		b.WriteString("  reg clk = 1'b0;\n")
		conns = append(conns, ".clk(clk)")
	}
	for _, p := range inputs {
		fmt.Fprintf(b, "  reg [%d:0] %s = 0;\n", p.Type.Width-1, p.Name)
		conns = append(conns, fmt.Sprintf(".%s(%s)", p.Name, p.Name))
	}
	for _, p := range outputs {
		fmt.Fprintf(b, "  wire [%d:0] %s;\n", p.Type.Width-1, p.Name)
		conns = append(conns, fmt.Sprintf(".%s(%s)", p.Name, p.Name))
	}
	fmt.Fprintf(b, "  %s dut (%s);\n", d.Top.Name, strings.Join(conns, ", "))
}

// tbTail prints the final outputs in hex and closes the module.
func tbTail(b *strings.Builder, d *hdl.Design) {
	_, outputs := stim.Ports(d)
	var fmts, names []string
	for _, p := range outputs {
		fmts = append(fmts, "%h")
		names = append(names, p.Name)
	}
	fmt.Fprintf(b, "    $display(\"%s\", %s);\n    $finish;\n  end\nendmodule\n", strings.Join(fmts, " "), strings.Join(names, ", "))
}

// icarusTB is a Verilog testbench generating the xorshift stimulus.
func icarusTB(d *hdl.Design, cycles int) (string, error) {
	data, _, err := stimulusPorts(d)
	if err != nil {
		return "", err
	}
	inf := d.Info[d.Top]
	var b strings.Builder
	tbHead(&b, d, "  reg [63:0] s;\n  integer c;\n")
	fmt.Fprintf(&b, "  initial begin\n    s = 64'd%d;\n    for (c = 0; c < %d; c = c + 1) begin\n", uint64(seed), cycles)
	if inf.UsesReset {
		b.WriteString("      rst = (c < 2);\n")
	}
	for _, p := range data {
		fmt.Fprintf(&b, "      s = s ^ (s << 13); s = s ^ (s >> 7); s = s ^ (s << 17); %s = s[%d:0];\n", p.Name, p.Type.Width-1)
	}
	if inf.UsesClock {
		b.WriteString("      #5 clk = 1'b1;\n      #5 clk = 1'b0;\n")
	} else {
		b.WriteString("      #10;\n")
	}
	b.WriteString("    end\n")
	tbTail(&b, d)
	return b.String(), nil
}

// icarusStimTB is a Verilog testbench replaying the first cycles of st.
// It prints "mark" (flushed) when it starts and at every phase end, for
// the reader to time, and the final outputs.
func icarusStimTB(d *hdl.Design, st *Recording, cycles int) string {
	var b strings.Builder
	tbHead(&b, d, "")
	b.WriteString("  initial begin\n    $display(\"mark\");\n    $fflush;\n")
	cur := 0
	advance := func(to int) {
		// Phase ends inside the stretch print the clock.
		for cur < to {
			next := to
			for _, ph := range st.Phases {
				if ph.End > cur && ph.End < next {
					next = ph.End
				}
			}
			fmt.Fprintf(&b, "    repeat (%d) begin #5 clk = 1'b1; #5 clk = 1'b0; end\n", next-cur)
			cur = next
			for _, ph := range st.Phases {
				if ph.End == cur && cur < cycles {
					b.WriteString("    $display(\"mark\");\n    $fflush;\n")
				}
			}
		}
	}
	for _, ch := range changes(st.Stimulus) {
		if ch.Cycle >= cycles {
			break
		}
		advance(ch.Cycle)
		p := st.Inputs[ch.Port]
		fmt.Fprintf(&b, "    %s = %d'h%s;\n", p.Name, p.Type.Width, ch.Value.Text(16))
	}
	advance(cycles)
	b.WriteString("    $display(\"mark\");\n    $fflush;\n")
	tbTail(&b, d)
	return b.String()
}

// compileIcarus writes d and the testbench tb into a fresh directory and
// compiles them there to bench.vvp; the caller removes the directory.
func compileIcarus(d *hdl.Design, tb string) (string, error) {
	dir, err := os.MkdirTemp("", "hwgen-bench-icarus-")
	if err != nil {
		return "", err
	}
	files := append(verilog.Emit(d), verilog.File{Name: "bench_tb.v", Data: []byte(tb)})
	var vs []string
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return dir, err
		}
		if strings.HasSuffix(f.Name, ".v") {
			vs = append(vs, f.Name)
		}
	}
	_, err = toolchain.Run(dir, "iverilog", append([]string{"-g2005", "-s", "bench_tb", "-o", "bench.vvp"}, vs...)...)
	return dir, err
}

// runIcarus compiles the design and the testbench with iverilog and times
// the vvp run (start-up included: the designs measured this way are small).
func runIcarus(d *hdl.Design, cycles int) (Lap, string, error) {
	tb, err := icarusTB(d, cycles)
	if err != nil {
		return Lap{}, "", err
	}
	dir, err := compileIcarus(d, tb)
	defer os.RemoveAll(dir)
	if err != nil {
		return Lap{}, "", err
	}
	cmd := exec.Command("vvp", "-n", "bench.vvp")
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err = cmd.Run()
	lap := Lap{Wall: time.Since(t0)}
	if err != nil {
		return Lap{}, "", fmt.Errorf("vvp: %w\n%s", err, out.String())
	}
	lap.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lap, strings.TrimSpace(lines[len(lines)-1]), nil
}

// runStimIcarus compiles d with the replay testbench and runs the first
// cycles of st on vvp. It returns the wall time of each phase reached (0
// for phases not reached; the last one reached may be partial, its time
// covering the cycles up to cycles), the CPU time of the vvp process, and
// the final outputs.
func runStimIcarus(d *hdl.Design, st *Recording, cycles int) ([]time.Duration, time.Duration, string, error) {
	dir, err := compileIcarus(d, icarusStimTB(d, st, cycles))
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, 0, "", err
	}
	// Time the marks as they arrive.
	cmd := exec.Command("vvp", "-n", "bench.vvp")
	cmd.Dir = dir
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, 0, "", err
	}
	var clocks []time.Time
	var final string
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "mark" {
			clocks = append(clocks, time.Now())
		} else if l != "" {
			final = l
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, 0, "", fmt.Errorf("vvp: %w\n%s", err, stderr.String())
	}
	times := make([]time.Duration, len(st.Phases))
	for i := range times {
		if i+1 < len(clocks) {
			times[i] = clocks[i+1].Sub(clocks[i])
		}
	}
	return times, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), final, nil
}
