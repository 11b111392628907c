package taskmgr

import (
	"fmt"

	"github.com/hwgen/hwgen/hdl"
	"github.com/hwgen/hwgen/internal/check"
	"github.com/hwgen/hwgen/isa"
)

// Config sizes the task manager and the descriptor layout. The NPU
// configuration embeds it; every field has a JSON name, a default and a
// checked range.
type Config struct {
	// Queues is the number of task queues (Q). Queue 0 has the highest
	// priority. Each queue carries one program (a network): its own task-ID
	// sequence and its own scoreboard window.
	Queues int `json:"queues"`
	// QueueDepth is the number of descriptors each queue holds.
	QueueDepth int `json:"queue_depth"`
	// Window is the scoreboard window W: a task may depend on the W-1 tasks
	// of its queue issued before it, and at most W tasks of a queue are
	// issued but not yet completed.
	Window int `json:"window"`
	// MaxDeps is the number of dependency fields (K) in a descriptor.
	MaxDeps int `json:"max_deps"`
	// EngineSlots is how many issued tasks wait, decoded, in front of each
	// engine (they wait there for their dependencies).
	EngineSlots int `json:"engine_slots"`
	// Outstanding is how many tasks an engine may have accepted but not yet
	// completed; 2 lets an engine take its next task while the previous
	// one drains.
	Outstanding int `json:"outstanding"`
	// IDBits is the width of task IDs in descriptors.
	IDBits int `json:"id_bits"`
	// AddrBits is the width of the address operands src, aux and dst.
	AddrBits int `json:"addr_bits"`
	// DimBits is the width of the size operands d0, d1 and d2.
	DimBits int `json:"dim_bits"`
	// ParamBits is the width of the param operand (packed op parameters).
	ParamBits int `json:"param_bits"`
	// FlagBits is the width of the debug flags handed to the engine.
	FlagBits int `json:"flag_bits"`
	// RoundRobin gives every queue the same priority: the arbiters (issue,
	// and dispatch per engine) take turns, starting after the queue they
	// served last, instead of preferring the lowest-numbered queue. For
	// queues that carry parts of one network (a band per queue).
	RoundRobin bool `json:"round_robin"`
	// NETargets is how many PE arrays stand behind the "ne" engine. With
	// 1, ne_ready alone says whether the offered task is taken. With more,
	// the NE param's target field (NETargetOffset, clog2(NETargets+1)
	// bits; NETargets or more: any array) names the array, the ne_free
	// input says which arrays can take a task, and the dispatch prefers a
	// queue whose task names a free array, so one queue's task for a busy
	// array does not hold back another queue's task for an idle one.
	NETargets int `json:"ne_targets"`
	// NETargetOffset is the bit offset of the target field in param.
	NETargetOffset int `json:"ne_target_offset"`
	// Sparse adds the sparse engine (isa.Sparse) and the DMA ops that
	// serve it; without it the task manager has the first
	// isa.DenseEngines engines and flags those ops as malformed.
	Sparse bool `json:"sparse"`
	// RoomPort adds the cmd_room output (bit q: queue q can take a
	// descriptor now), for a front end that picks the queue it fetches
	// for (the NPU's descriptor rings, blocks/descfetch).
	RoomPort bool `json:"room_port"`
	// Partial adds the descriptor's partial flag: a task with it set is
	// dispatched once its dep0 has started (been dispatched), not
	// finished. The engines get <e>_partial and <e>_pdep (dep0's low
	// log2(window)+1 bits) so the NPU can gate the task's reads against
	// dep0's writes.
	Partial bool `json:"partial"`
	// NetBits adds the network fields to the descriptor: net (NetBits
	// wide), the network the task belongs to, and the source and
	// destination kinds src_mem and dst_mem (operand relative to the
	// network's base pointer, or absolute). The engines receive them;
	// the NPU keeps the base pointers. 0: no network fields.
	NetBits int `json:"net_bits"`
	// Lean trims the task manager for small NPUs. Each engine's slots
	// hold only the descriptor operands its operations read
	// (isa.Engine.Operands; its dispatch port has only those). Queues
	// of 2 are two registers (same timing); deeper queues are memories
	// without the bypass register: a descriptor pushed into an empty
	// queue can issue one cycle later (dispatch at c+3, not c+2).
	Lean bool `json:"lean"`
	// QueueWords stores each queued descriptor as this many words of
	// ceil(width/QueueWords) bits, in a memory QueueWords times deeper
	// and narrower (0 or 1: one word, the plain queue). Block RAMs are
	// narrow and deep (an iCE40's is 256 x 16), so a shallow queue of
	// wide descriptors fills a few rows of many RAMs; K words per
	// descriptor need about K times fewer. The price: each queue takes
	// and issues at most one descriptor every K cycles (the memory moves
	// one word per cycle) and a descriptor pushed into an empty queue is
	// dispatched K+2 cycles later. A power of two (a descriptor's words
	// sit at entry*K+i, and the word counters wrap) up to 16 (16 words of
	// the default 271-bit descriptor are 17 bits, an iCE40 RAM's width;
	// more would only slow the issue). Lean queues of 2 are registers,
	// with no memory to reshape, so Lean with queue_depth 2 refuses it.
	QueueWords int `json:"queue_words"`
}

// Engines are the engines the task manager dispatches to, in engine-code
// order: a code at or beyond the last is malformed.
func (c Config) Engines() []isa.EngineDef {
	if c.Sparse {
		return isa.Engines[:]
	}
	return isa.Engines[:isa.DenseEngines]
}

// MaxParamBits bounds the param operand; wider than 64 bits it is carried
// as several descriptor fields (param0, param1, ...), 64 bits each.
const MaxParamBits = 512

// DefaultConfig is the configuration of the default NPU: 2 queues of 16
// descriptors, a 64-task window, up to 4 dependencies per task.
func DefaultConfig() Config {
	return Config{
		Queues:      2,
		QueueDepth:  16,
		Window:      64,
		MaxDeps:     4,
		EngineSlots: 2,
		Outstanding: 2,
		IDBits:      16,
		AddrBits:    32,
		DimBits:     16,
		ParamBits:   32,
		FlagBits:    4,
		NETargets:   1,
	}
}

// Validate reports every field outside its range at once; each error wraps
// check.ErrConfig and names the JSON field.
func (c Config) Validate() error { return c.Check("") }

// Check is Validate with field names under path ("npu.taskmgr"), for a
// configuration that embeds this one.
func (c Config) Check(path string) error {
	f := check.Prefix(path)
	errs := []error{
		check.Range(f("queues"), c.Queues, 1, 8),
		check.PowerOfTwo(f("queue_depth"), c.QueueDepth, 2, 1024, "queue pointers wrap by bit width"),
		check.PowerOfTwo(f("window"), c.Window, 4, 1024, "the scoreboard is indexed by the low bits of a task ID"),
		check.Range(f("max_deps"), c.MaxDeps, 1, 8),
		check.Range(f("engine_slots"), c.EngineSlots, 1, 8),
		check.Range(f("outstanding"), c.Outstanding, 1, 8),
		check.Range(f("addr_bits"), c.AddrBits, 1, 64),
		check.Range(f("dim_bits"), c.DimBits, 1, 64),
		check.Range(f("param_bits"), c.ParamBits, 1, MaxParamBits),
		check.Range(f("flag_bits"), c.FlagBits, 1, 16),
		check.Range(f("ne_targets"), c.NETargets, 1, 8),
		check.Range(f("net_bits"), c.NetBits, 0, 4),
	}
	if c.QueueWords != 0 {
		errs = append(errs, check.PowerOfTwo(f("queue_words"), c.QueueWords, 1, 16,
			"0 or 1: one word per descriptor; a descriptor's words sit at entry*K+i and its word counters wrap"))
	}
	if c.QueueWords > 1 && c.Lean && c.QueueDepth == 2 {
		errs = append(errs, &check.FieldError{Field: f("queue_words"), Value: c.QueueWords,
			Allowed: "must be 0 or 1 with lean and queue_depth 2 (those queues are registers, no memory to store in words)"})
	}
	if c.ParamBits >= 1 && c.NETargets >= 1 && (c.NETargetOffset < 0 || c.NETargetOffset+c.targetBits() > c.ParamBits) {
		errs = append(errs, &check.FieldError{Field: f("ne_target_offset"), Value: c.NETargetOffset,
			Allowed: fmt.Sprintf("must be in 0..%d: the %d-bit target field must lie inside the %d param bits", c.ParamBits-c.targetBits(), c.targetBits(), c.ParamBits)})
	}
	// A task ID must tell apart two tasks of a window, and a dependency
	// distance must be able to fall outside it: IDs need at least
	// log2(window)+1 bits.
	minID := 3
	if c.Window >= 4 && c.Window&(c.Window-1) == 0 {
		minID = log2(c.Window) + 1
	}
	if c.IDBits < minID || c.IDBits > 32 {
		errs = append(errs, &check.FieldError{Field: f("id_bits"), Value: c.IDBits,
			Allowed: fmt.Sprintf("must be in %d..32 (at least log2(window)+1 so a distance can leave the window)", minID)})
	}
	return check.All(errs...)
}

// targetBits is the width of the NE param's target field.
func (c Config) targetBits() int { return hdl.ClogWidth(c.NETargets + 1) }

// name is the module name: every parameter that changes the structure.
func (c Config) name() string {
	n := c.baseName()
	if c.RoundRobin {
		n = hdl.Name(n, "rr")
	}
	if c.NETargets > 1 {
		n = hdl.Name(n, fmt.Sprintf("t%dat%d", c.NETargets, c.NETargetOffset))
	}
	if c.Sparse {
		n = hdl.Name(n, "sp")
	}
	if c.RoomPort {
		n = hdl.Name(n, "room")
	}
	if c.Partial {
		n = hdl.Name(n, "pd")
	}
	if c.NetBits > 0 {
		n = hdl.Name(n, fmt.Sprintf("n%d", c.NetBits))
	}
	if c.Lean {
		n = hdl.Name(n, "lean")
	}
	if c.words() > 1 {
		n = hdl.Name(n, fmt.Sprintf("qw%d", c.QueueWords))
	}
	return n
}

func (c Config) baseName() string {
	return hdl.Name("taskmgr", fmt.Sprintf("q%dx%d", c.Queues, c.QueueDepth), fmt.Sprintf("w%d", c.Window),
		fmt.Sprintf("k%d", c.MaxDeps), fmt.Sprintf("s%do%d", c.EngineSlots, c.Outstanding),
		fmt.Sprintf("i%da%dd%dp%df%d", c.IDBits, c.AddrBits, c.DimBits, c.ParamBits, c.FlagBits))
}

// words is the number of memory words per queued descriptor (QueueWords,
// 0 meaning 1).
func (c Config) words() int { return max(c.QueueWords, 1) }

// log2 of a power of two.
func log2(v int) int {
	n := 0
	for 1<<n < v {
		n++
	}
	return n
}
