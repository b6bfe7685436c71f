package update

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// bitOp is one and/or/xor clause of $bit with an int32 or int64 operand.
type bitOp struct {
	name string
	v    any
}

func (o *op) parseBit(f bson.E) error {
	d, ok := f.Value.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.BadValue,
			"The $bit modifier is not compatible with a %s. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}",
			typeName(f.Value))
	}
	if len(d) == 0 {
		return mongoerr.New(mongoerr.BadValue,
			"You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}")
	}
	for _, e := range d {
		if e.Key != "and" && e.Key != "or" && e.Key != "xor" {
			return mongoerr.New(mongoerr.BadValue,
				"The $bit modifier only supports 'and', 'or', and 'xor', not '%s' which is an unknown operator: {%s}",
				e.Key, fmtElem(e.Key, e.Value))
		}
		switch e.Value.(type) {
		case int32, int64:
		default:
			return mongoerr.New(mongoerr.BadValue,
				"The $bit modifier field must be an Integer(32/64 bit); a '%s' is not supported here: {%s}",
				typeName(e.Value), fmtElem(e.Key, e.Value))
		}
		o.bits = append(o.bits, bitOp{name: e.Key, v: e.Value})
	}
	return nil
}

func (st *state) bitLeaf(o *op) leafFn {
	return func(old any, exists bool, p []string) (any, action, error) {
		var cur any = int32(0)
		if exists {
			switch old.(type) {
			case int32, int64:
				cur = old
			default:
				return nil, actNone, mongoerr.New(mongoerr.BadValue,
					"Cannot apply $bit to a value of non-integral type.%s has the field %s of non-integer type %s",
					st.idElem(), p[len(p)-1], typeName(old))
			}
		}
		for _, b := range o.bits {
			cur = applyBit(b, cur)
		}
		if exists && identical(cur, old) {
			return nil, actNone, nil
		}
		return cur, actSet, nil
	}
}

// applyBit combines cur with the clause; int32 with int32 stays int32,
// anything else widens to int64.
func applyBit(b bitOp, cur any) any {
	x, _ := asInt(cur)
	y, _ := asInt(b.v)
	var r int64
	switch b.name {
	case "and":
		r = x & y
	case "or":
		r = x | y
	default:
		r = x ^ y
	}
	_, c32 := cur.(int32)
	_, v32 := b.v.(int32)
	if c32 && v32 {
		return int32(r)
	}
	return r
}
