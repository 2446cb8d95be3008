package embedtest

// Minimal hand-rolled ONNX protobuf encoder (onnx.proto3 field numbers).
// Only the handful of messages/fields needed for a small inference graph.

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX TensorProto.DataType values.
const (
	dtFloat = 1
	dtInt64 = 7
)

type msg []byte

func (m msg) str(field protowire.Number, s string) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendString(m, s)
}

func (m msg) bytes(field protowire.Number, b []byte) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

func (m msg) varint(field protowire.Number, v int64) msg {
	m = protowire.AppendTag(m, field, protowire.VarintType)
	return protowire.AppendVarint(m, uint64(v))
}

func (m msg) f32(field protowire.Number, v float32) msg {
	m = protowire.AppendTag(m, field, protowire.Fixed32Type)
	return protowire.AppendFixed32(m, math.Float32bits(v))
}

func (m msg) packedVarints(field protowire.Number, vs []int64) msg {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(v))
	}
	return m.bytes(field, b)
}

// tensorProto: dims=1, data_type=2, name=8, raw_data=9 (little endian).
func tensorProto(name string, dtype int, dims []int64, raw []byte) msg {
	var m msg
	if len(dims) > 0 {
		m = m.packedVarints(1, dims)
	}
	m = m.varint(2, int64(dtype))
	m = m.str(8, name)
	m = m.bytes(9, raw)
	return m
}

func floatTensor(name string, dims []int64, data []float32) msg {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return tensorProto(name, dtFloat, dims, raw)
}

func int64Tensor(name string, dims []int64, data []int64) msg {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return tensorProto(name, dtInt64, dims, raw)
}

// Dim is either a fixed value (Value>0) or a symbolic name (Param).
type Dim struct {
	Value int64
	Param string
}

// valueInfo: ValueInfoProto{name=1, type=2 TypeProto{tensor_type=1 {elem_type=1, shape=2 {dim=1 {dim_value=1 | dim_param=2}}}}}
func valueInfo(name string, elemType int, dims ...Dim) msg {
	var shape msg
	for _, d := range dims {
		var dm msg
		if d.Param != "" {
			dm = dm.str(2, d.Param)
		} else {
			dm = dm.varint(1, d.Value)
		}
		shape = shape.bytes(1, dm)
	}
	var tt msg
	tt = tt.varint(1, int64(elemType))
	tt = tt.bytes(2, shape)
	var tp msg
	tp = tp.bytes(1, tt)
	var m msg
	m = m.str(1, name)
	m = m.bytes(2, tp)
	return m
}

// Attribute constructors. AttributeProto{name=1, f=2, i=3, ints=8, type=20}.
type attr msg

func attrInt(name string, v int64) attr {
	return attr(msg(nil).str(1, name).varint(3, v).varint(20, 2)) // INT
}

func attrFloat(name string, v float32) attr {
	return attr(msg(nil).str(1, name).f32(2, v).varint(20, 1)) // FLOAT
}

func attrInts(name string, vs ...int64) attr {
	return attr(msg(nil).str(1, name).packedVarints(8, vs).varint(20, 7)) // INTS
}

// graphBuilder accumulates GraphProto fields.
type graphBuilder struct {
	nodes, inits, inputs, outputs []msg
	n                             int
}

func (g *graphBuilder) init(t msg) { g.inits = append(g.inits, t) }

// op appends a NodeProto{input=1, output=2, name=3, op_type=4, attribute=5} with one output and
// returns the output name.
func (g *graphBuilder) op(opType string, inputs []string, attrs ...attr) string {
	g.n++
	out := opType + "_" + itoa(g.n)
	g.opNamed(out, opType, inputs, attrs...)
	return out
}

func (g *graphBuilder) opNamed(out, opType string, inputs []string, attrs ...attr) {
	var m msg
	for _, in := range inputs {
		m = m.str(1, in)
	}
	m = m.str(2, out)
	m = m.str(3, "node_"+out)
	m = m.str(4, opType)
	for _, a := range attrs {
		m = m.bytes(5, a)
	}
	g.nodes = append(g.nodes, m)
}

// model serialises ModelProto{ir_version=1, producer_name=2, graph=7, opset_import=8 {domain=1, version=2}}.
func (g *graphBuilder) model(name string, irVersion, opset int64) []byte {
	var gm msg
	for _, n := range g.nodes {
		gm = gm.bytes(1, n)
	}
	gm = gm.str(2, name)
	for _, t := range g.inits {
		gm = gm.bytes(5, t)
	}
	for _, v := range g.inputs {
		gm = gm.bytes(11, v)
	}
	for _, v := range g.outputs {
		gm = gm.bytes(12, v)
	}
	var m msg
	m = m.varint(1, irVersion)
	m = m.str(2, "tinybert-gen")
	m = m.bytes(7, gm)
	m = m.bytes(8, msg(nil).str(1, "").varint(2, opset))
	return m
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	return string(b[p:])
}
