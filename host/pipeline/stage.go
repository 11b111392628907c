package pipeline

import (
	"context"
	"fmt"
	"strings"
)

// Stage is one step of a pipeline: Fn turns a packet's In into its Out.
// Fn runs on the stage's own goroutine, one packet at a time, in packet
// order; it must not keep In after returning if an earlier stage could
// reuse it.
type Stage[In, Out any] struct {
	Name string // names the stage in errors, Stats and the timeline; unique in a pipeline
	Fn   func(ctx context.Context, in In) (Out, error)
}

// NewStage is Stage{name, fn} with the type parameters inferred from fn.
func NewStage[In, Out any](name string, fn func(context.Context, In) (Out, error)) Stage[In, Out] {
	return Stage[In, Out]{Name: name, Fn: fn}
}

// Pipeline is a chain of stages taking In packets to Out results. It is
// immutable: Then returns a new pipeline.
type Pipeline[In, Out any] struct {
	stages []erased
}

// erased is a stage with its types erased, so that stages of different
// types can be kept in one slice; New and Then check the types statically.
type erased struct {
	name string
	fn   func(context.Context, any) (any, error)
}

func erase[In, Out any](s Stage[In, Out]) erased {
	e := erased{name: s.Name}
	if s.Fn != nil {
		e.fn = func(ctx context.Context, v any) (any, error) {
			in, _ := v.(In) // not ok only for a nil interface value: the zero In
			return s.Fn(ctx, in)
		}
	}
	return e
}

// New starts a pipeline with its first stage.
func New[In, Out any](s Stage[In, Out]) *Pipeline[In, Out] {
	return &Pipeline[In, Out]{stages: []erased{erase(s)}}
}

// Then appends stage s to p.
func Then[In, Mid, Out any](p *Pipeline[In, Mid], s Stage[Mid, Out]) *Pipeline[In, Out] {
	return &Pipeline[In, Out]{stages: append(p.stages[:len(p.stages):len(p.stages)], erase(s))}
}

// Stages are the names of the stages, in order.
func (p *Pipeline[In, Out]) Stages() []string {
	names := make([]string, len(p.stages))
	for i, s := range p.stages {
		names[i] = s.name
	}
	return names
}

func (p *Pipeline[In, Out]) validate() error {
	seen := map[string]int{}
	for i, s := range p.stages {
		if s.name == "" {
			return fmt.Errorf("pipeline: stage %d has no name", i)
		}
		if j, ok := seen[s.name]; ok {
			return fmt.Errorf("pipeline: stages %d and %d are both named %q: names must be unique", j, i, s.name)
		}
		seen[s.name] = i
		if s.fn == nil {
			return fmt.Errorf("pipeline: stage %q has no function", s.name)
		}
	}
	return nil
}

// PacketError is the error of a packet that one stage failed.
type PacketError struct {
	Packet int    // index of the packet in the input, from 0
	Stage  string // the stage that failed it
	Err    error
}

// Error is one line, "packet 3: stage pre: …"; a multi-line stage error
// has its line breaks replaced by "; ".
func (e *PacketError) Error() string {
	return fmt.Sprintf("packet %d: stage %s: %s", e.Packet, e.Stage, strings.ReplaceAll(strings.TrimSpace(e.Err.Error()), "\n", "; "))
}

func (e *PacketError) Unwrap() error { return e.Err }
