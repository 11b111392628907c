package taskmgr

import (
	"github.com/hwgen/hwgen/hdl"
)

// Error codes of err_code, in priority order when a descriptor has several
// faults.
const (
	ErrNone      = 0
	ErrID        = 1 // the task ID is not the queue's next ID
	ErrEngine    = 2 // unknown engine code
	ErrOp        = 3 // unknown operation for the engine
	ErrNDeps     = 4 // ndeps above max_deps
	ErrDepWindow = 5 // a dependency is not one of the window-1 tasks before this one
	errBits      = 3
)

// CounterBits is the width of the completed and skipped counters.
const CounterBits = 32

// Build generates the task manager for cfg. See the package documentation
// for its ports and behaviour.
func Build(cfg Config) (*hdl.Module, error) {
	lay, err := NewLayout(cfg)
	if err != nil {
		return nil, err
	}
	b := &builder{cfg: cfg, lay: lay, m: hdl.NewModule(cfg.name())}
	b.build()
	return b.m, nil
}

type builder struct {
	cfg Config
	lay *Layout
	m   *hdl.Module

	n, l, qb int // log2(window), n+1, queue-number width

	// inputs
	cmdValid, cmdQueue, cmdDesc, errClear *hdl.Signal
	ready, done                           []*hdl.Signal // per engine

	// the descriptor queues, their pop strobes, and the slot FIFOs (per
	// engine, then per queue) with their records (per engine)
	queues []*hdl.Instance
	pops   []*hdl.Signal
	recs   []*record
	slots  [][]*hdl.Instance

	// per queue
	seq, base, bits, skip []*hdl.Signal
	// per queue, with Config.Partial: the window's dispatched bits, and
	// this cycle's dispatches (engine, queue, window index) that set them
	started []*hdl.Signal
	fires   []dispatchEvent
	// per engine: completions this cycle (the bypass into the dependency
	// check and the scoreboard update)
	comp          []*hdl.Expr
	compQ, compIx []*hdl.Expr
	// the engine being built: its offers not yet taken (keepPromises)
	promises []promise
}

// build creates the module's signals in a fixed order (the emitted
// Verilog declares them in that order), part by part.
func (b *builder) build() {
	c := b.cfg
	b.n = log2(c.Window)
	b.l = b.n + 1
	b.qb = hdl.ClogWidth(c.Queues)

	b.inputs()
	b.buildQueues()
	b.scoreboardState()
	b.engineSlots()
	s := b.arbiter()
	b.check(s)
	b.issue(s)
	b.issueBookkeeping(s)
	errs := b.errorStatus(s)
	idle := b.dispatch(s)
	b.scoreboardUpdate(s)
	b.status(s, errs, idle)
}

func (b *builder) inputs() {
	m := b.m
	b.cmdValid = m.Input("cmd_valid", hdl.Bool)
	b.cmdQueue = m.Input("cmd_queue", hdl.UInt(b.qb))
	b.cmdDesc = m.Input("cmd_desc", hdl.UInt(b.lay.Width))
	b.errClear = m.Input("err_clear", hdl.Bool)
	engines := b.cfg.Engines()
	b.ready = make([]*hdl.Signal, len(engines))
	b.done = make([]*hdl.Signal, len(engines))
	for e, def := range engines {
		b.ready[e] = m.Input(def.Name+"_ready", hdl.Bool)
		b.done[e] = m.Input(def.Name+"_done", hdl.Bool)
	}
}

// status is the skipped counter and the status outputs.
func (b *builder) status(s *issueStage, errs errorRegs, idle *hdl.Expr) {
	c, m := b.cfg, b.m
	skipped := m.Reg("skipped_r", hdl.UInt(CounterBits), 0)
	skipped.SetNext(skipped.Add(hdl.U(1, 1)).Trunc(CounterBits))
	skipped.SetEnable(s.retire)

	m.Output("err_code", hdl.UInt(errBits)).Set(errs.code)
	m.Output("err_id", hdl.UInt(c.IDBits)).Set(errs.id)
	m.Output("err_queue", hdl.UInt(b.qb)).Set(errs.queue)
	m.Output("skipped", hdl.UInt(CounterBits)).Set(skipped)
	m.Output("idle", hdl.Bool).Set(idle)
}
