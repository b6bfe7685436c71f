package update

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// opKind names an update operator.
type opKind string

const (
	opSet         opKind = "$set"
	opUnset       opKind = "$unset"
	opInc         opKind = "$inc"
	opMul         opKind = "$mul"
	opMin         opKind = "$min"
	opMax         opKind = "$max"
	opRename      opKind = "$rename"
	opSetOnInsert opKind = "$setOnInsert"
	opCurrentDate opKind = "$currentDate"
	opPush        opKind = "$push"
	opPull        opKind = "$pull"
	opPullAll     opKind = "$pullAll"
	opAddToSet    opKind = "$addToSet"
	opPop         opKind = "$pop"
	opBit         opKind = "$bit"
)

var knownOps = map[string]opKind{
	"$set": opSet, "$unset": opUnset, "$inc": opInc, "$mul": opMul, "$min": opMin,
	"$max": opMax, "$rename": opRename, "$setOnInsert": opSetOnInsert,
	"$currentDate": opCurrentDate, "$push": opPush, "$pull": opPull,
	"$pullAll": opPullAll, "$addToSet": opAddToSet, "$pop": opPop, "$bit": opBit,
}

// op is one (operator, path, argument) triple of an update document.
type op struct {
	kind opKind
	path []string // dotted path split into components
	arg  any      // the raw argument

	// Parsed arguments, by kind.
	to      []string       // $rename destination
	push    *pushSpec      // $push / $addToSet ($each values in push.each)
	pull    *pullCond      // $pull
	popLast bool           // $pop: 1 removes the last element
	bits    []bitOp        // $bit
	dateTS  bool           // $currentDate: timestamp instead of date
	coll    bsonx.Collator // orders strings (Options.Collator); nil: binary
}

// sortPath is the path the op is ordered by.
func (o *op) sortPath() []string {
	if o.kind == opRename {
		return o.to
	}
	return o.path
}

func parseOps(d bson.D, fs filters, coll bsonx.Collator) ([]*op, error) {
	var ops []*op
	seen := &conflicts{}
	for _, e := range d {
		kind, ok := knownOps[e.Key]
		if !ok {
			return nil, mongoerr.New(mongoerr.FailedToParse,
				"Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", e.Key)
		}
		fields, ok := e.Value.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.FailedToParse,
				"Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s: %s}",
				typeName(e.Value), e.Key, fmtValue(e.Value))
		}
		// MongoDB 5.0+: an empty operand ({$set: {}}) is a no-op, not an error.
		for _, f := range fields {
			o, err := parseOp(kind, f, fs, coll)
			if err != nil {
				return nil, err
			}
			if err := seen.add(o); err != nil {
				return nil, err
			}
			ops = append(ops, o)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return cmpPath(ops[i].sortPath(), ops[j].sortPath()) < 0 })
	return ops, nil
}

func parseOp(kind opKind, f bson.E, fs filters, coll bsonx.Collator) (*op, error) {
	path, err := parsePath(f.Key, fs)
	if err != nil {
		return nil, err
	}
	o := &op{kind: kind, path: path, arg: f.Value, coll: coll}
	if err := o.parseArg(f, fs); err != nil {
		return nil, err
	}
	return o, nil
}

// parsePath validates a dotted update path and splits it.
func parsePath(p string, fs filters) ([]string, error) {
	if p == "" {
		return nil, mongoerr.New(mongoerr.EmptyFieldName, "An empty update path is not valid.")
	}
	comps := strings.Split(p, ".")
	positional := 0
	for i, c := range comps {
		if c == "" {
			return nil, mongoerr.New(mongoerr.EmptyFieldName,
				"The update path '%s' contains an empty field name, which is not allowed.", p)
		}
		if err := checkComponent(p, c, i, fs); err != nil {
			return nil, err
		}
		if c == "$" {
			positional++
		}
	}
	if positional > 1 {
		return nil, mongoerr.New(mongoerr.BadValue,
			"Too many positional (i.e. '$') elements found in path '%s'", p)
	}
	return comps, nil
}

func checkComponent(p, c string, i int, fs filters) error {
	if c[0] != '$' {
		return nil
	}
	if c == "$" {
		if i == 0 {
			return mongoerr.New(mongoerr.BadValue,
				"Cannot have positional (i.e. '$') element in the first position in path '%s'", p)
		}
		return nil
	}
	id, ok := arrayFilterID(c)
	if !ok {
		return mongoerr.New(mongoerr.DollarPrefixedFieldName,
			"The dollar ($) prefixed field '%s' in '%s' is not valid for storage.", c, p)
	}
	if i == 0 {
		return mongoerr.New(mongoerr.BadValue,
			"Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '%s'", p)
	}
	if id != "" && fs[id] == nil {
		return mongoerr.New(mongoerr.BadValue,
			"No array filter found for identifier '%s' in path '%s'", id, p)
	}
	return nil
}

// arrayFilterID returns the identifier of a $[id] component ("" for $[]).
func arrayFilterID(c string) (string, bool) {
	if len(c) < 3 || !strings.HasPrefix(c, "$[") || c[len(c)-1] != ']' {
		return "", false
	}
	return c[2 : len(c)-1], true
}

// isArrayUpdate reports whether c is $[] or $[id].
func isArrayUpdate(c string) bool {
	_, ok := arrayFilterID(c)
	return ok
}

// cmpPath orders paths component by component: numeric components
// numerically, others as strings.
func cmpPath(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmpComponent(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func cmpComponent(a, b string) int {
	ia, aok := bsonx.ArrayIndex(a)
	ib, bok := bsonx.ArrayIndex(b)
	if aok && bok {
		return ia - ib
	}
	return strings.Compare(a, b)
}
