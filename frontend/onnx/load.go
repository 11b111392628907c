package onnx

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/hwgen/hwgen/frontend/onnx/onnxpb"
	"github.com/hwgen/hwgen/internal/budget"
)

// The default-domain opsets Load accepts: every opset from the first to
// 21. The float executor follows each op's older forms (Op.Opsets says
// which opsets an op is read in; old attribute forms such as Add's
// broadcast and axis or BatchNormalization's spatial are honoured).
const (
	MinOpset = 1
	MaxOpset = 21
)

// LoadFile reads the ONNX model at path, refused before it is read when
// it is larger than budget.ModelMax or a quarter of the memory budget
// (a stream such as /dev/zero: when it runs past budget.StreamMax).
func LoadFile(path string) (*Model, error) {
	f, _, err := budget.Open(path, "an ONNX model", budget.ModelMax)
	if budget.Is(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Load reads a serialized ONNX ModelProto, at most budget.ModelMax bytes
// (protobuf's own limit).
func Load(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(io.LimitReader(r, budget.ModelMax+1))
	if err != nil {
		return nil, fmt.Errorf("onnx: reading model: %w", err)
	}
	if len(b) > budget.ModelMax {
		return nil, fmt.Errorf("onnx: not a valid ONNX model: more than %d bytes, protobuf's limit", int64(budget.ModelMax))
	}
	// An empty message is valid protobuf, so an empty or garbage file can
	// decode to a ModelProto without error; the graph and IR version that
	// every real model carries are what tell it apart.
	if len(b) == 0 {
		return nil, errors.New("onnx: not a valid ONNX model: empty file")
	}
	var p onnxpb.ModelProto
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("onnx: not a valid ONNX model (truncated or not protobuf): %w", err)
	}
	if p.IrVersion == nil || p.Graph == nil {
		return nil, errors.New("onnx: not a valid ONNX model: no IR version or no graph")
	}
	return decodeModel(&p)
}

func decodeModel(p *onnxpb.ModelProto) (*Model, error) {
	m := &Model{IRVersion: p.GetIrVersion(), Producer: p.GetProducerName()}
	if err := checkIRVersion(m.IRVersion); err != nil {
		return nil, err
	}
	for _, o := range p.GetOpsetImport() {
		switch d := o.GetDomain(); d {
		case "", "ai.onnx":
			m.Opset = o.GetVersion()
		default:
			if m.OtherOpsets == nil {
				m.OtherOpsets = map[string]int64{}
			}
			m.OtherOpsets[d] = o.GetVersion()
		}
	}
	if m.Opset == 0 {
		return nil, errors.New("onnx: model imports no default-domain opset")
	}
	if m.Opset < MinOpset || m.Opset > MaxOpset {
		return nil, fmt.Errorf("onnx: opset_import: default-domain opset %d not supported; supported: %d to %d", m.Opset, MinOpset, MaxOpset)
	}
	g, err := decodeGraph(p.GetGraph())
	if err != nil {
		return nil, err
	}
	m.Graph = *g
	m.Graph.Opset = m.Opset
	return m, nil
}

func decodeGraph(p *onnxpb.GraphProto) (*Graph, error) {
	g := &Graph{Name: p.GetName()}
	fed := map[string]bool{}
	for i, tp := range p.GetInitializer() {
		t, err := decodeTensor(tp, fmt.Sprintf("onnx: initializer %d %q", i, tp.GetName()))
		if err != nil {
			return nil, err
		}
		g.Initializers = append(g.Initializers, t)
		fed[t.Name] = true
	}
	if len(p.GetSparseInitializer()) > 0 {
		return nil, fmt.Errorf("onnx: graph %q: sparse initializers not supported", g.Name)
	}
	for _, vp := range p.GetInput() {
		if fed[vp.GetName()] {
			continue
		}
		v, err := decodeValue(vp, "graph input")
		if err != nil {
			return nil, err
		}
		g.Inputs = append(g.Inputs, v)
	}
	for _, vp := range p.GetOutput() {
		v, err := decodeValue(vp, "graph output")
		if err != nil {
			return nil, err
		}
		g.Outputs = append(g.Outputs, v)
	}
	for i, np := range p.GetNode() {
		n, err := decodeNode(np, i)
		if err != nil {
			return nil, err
		}
		g.Nodes = append(g.Nodes, n)
	}
	if err := validateGraph(g); err != nil {
		return nil, err
	}
	return g, nil
}

// checkProducers refuses a value given twice: two nodes writing one
// output, or a node writing a graph input or an initializer. The executor
// and the lowering key values by name, so the second writer would
// silently replace the first.
func checkProducers(g *Graph) error {
	by := map[string]string{}
	for _, t := range g.Initializers {
		if prev, ok := by[t.Name]; ok {
			return fmt.Errorf("onnx: initializer %q is given twice (%s); each value must have one producer", t.Name, prev)
		}
		by[t.Name] = fmt.Sprintf("initializer %q", t.Name)
	}
	for _, v := range g.Inputs { // those an initializer feeds were left out
		if prev, ok := by[v.Name]; ok {
			return fmt.Errorf("onnx: graph input %q is given twice (%s); each value must have one producer", v.Name, prev)
		}
		by[v.Name] = fmt.Sprintf("graph input %q", v.Name)
	}
	for i, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o == "" {
				continue // an omitted optional output
			}
			if prev, ok := by[o]; ok {
				return fmt.Errorf("onnx: %s: output %q is already given by %s; each value must have one producer", n.label(i), o, prev)
			}
			by[o] = n.label(i)
		}
	}
	return nil
}

// decodeValue keeps the element type whatever it is: Check, not Load,
// rejects unsupported ones, since nothing here depends on it.
func decodeValue(p *onnxpb.ValueInfoProto, role string) (Value, error) {
	v := Value{Name: p.GetName()}
	tt := p.GetType().GetTensorType()
	if tt == nil {
		return v, fmt.Errorf("onnx: %s %q: not a tensor (sequence, map and optional values are not supported)", role, v.Name)
	}
	v.DType = DType(tt.GetElemType())
	if sh := tt.GetShape(); sh != nil {
		v.Shape = []Dim{}
		for _, d := range sh.GetDim() {
			v.Shape = append(v.Shape, Dim{Size: d.GetDimValue(), Param: d.GetDimParam()})
		}
	}
	return v, nil
}

func decodeNode(p *onnxpb.NodeProto, index int) (*Node, error) {
	n := &Node{
		Name:    p.GetName(),
		OpType:  p.GetOpType(),
		Domain:  p.GetDomain(),
		Inputs:  p.GetInput(),
		Outputs: p.GetOutput(),
		Attrs:   map[string]Attr{},
	}
	if n.Domain == "ai.onnx" {
		n.Domain = ""
	}
	for _, ap := range p.GetAttribute() {
		a, err := decodeAttr(ap)
		if err != nil {
			return nil, fmt.Errorf("onnx: %s: attribute %q: %w", n.label(index), ap.GetName(), err)
		}
		n.Attrs[ap.GetName()] = a
	}
	return n, nil
}

func decodeAttr(p *onnxpb.AttributeProto) (Attr, error) {
	a := Attr{Kind: AttrKind(p.GetType())}
	switch a.Kind {
	case AttrFloat:
		a.Float = p.GetF()
	case AttrInt:
		a.Int = p.GetI()
	case AttrString:
		a.String = string(p.GetS())
	case AttrFloats:
		a.Floats = p.GetFloats()
	case AttrInts:
		a.Ints = p.GetInts()
	case AttrTensor:
		t, err := decodeTensor(p.GetT(), "tensor")
		if err != nil {
			return a, err
		}
		a.Tensor = t
	case AttrKind(onnxpb.AttributeProto_UNDEFINED):
		return a, errors.New("no attribute type")
	}
	return a, nil
}

// label names a node in errors: its index always, its name when it has one.
func (n *Node) label(index int) string {
	if n.Name == "" {
		return fmt.Sprintf("node %d (%s)", index, n.qualifiedOp())
	}
	return fmt.Sprintf("node %d %q (%s)", index, n.Name, n.qualifiedOp())
}

func (n *Node) qualifiedOp() string {
	if n.Domain == "" {
		return n.OpType
	}
	return n.Domain + "." + n.OpType
}

// LoadTensorFile reads the serialized TensorProto at path (refused as
// LoadFile refuses a model too large).
func LoadTensorFile(path string) (*Tensor, error) {
	f, _, err := budget.Open(path, "an ONNX tensor", budget.ModelMax)
	if budget.Is(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	defer f.Close()
	t, err := LoadTensor(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// LoadTensor reads a serialized TensorProto, e.g. a Model Zoo
// test_data_set_N/input_0.pb.
func LoadTensor(r io.Reader) (*Tensor, error) {
	b, err := io.ReadAll(io.LimitReader(r, budget.ModelMax+1))
	if err != nil {
		return nil, fmt.Errorf("onnx: reading tensor: %w", err)
	}
	if len(b) > budget.ModelMax {
		return nil, fmt.Errorf("onnx: not a valid ONNX tensor: more than %d bytes, protobuf's limit", int64(budget.ModelMax))
	}
	var p onnxpb.TensorProto
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("onnx: not a valid ONNX tensor: %w", err)
	}
	if p.DataType == nil {
		return nil, errors.New("onnx: not a valid ONNX tensor: no data type")
	}
	return decodeTensor(&p, fmt.Sprintf("onnx: tensor %q", p.GetName()))
}
