package query

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// elemMatchValue implements {$elemMatch: {$op: ...}}: some element of the
// array satisfies every operator.
type elemMatchValue []valueMatcher

func (m elemMatchValue) matchValue(v any, _ bool) bool {
	ok, _ := m.matchPos(v)
	return ok
}

func (m elemMatchValue) matchPos(v any) (bool, int) {
	arr, ok := v.(bson.A)
	if !ok {
		return false, -1
	}
	for i, e := range arr {
		if andValue(m).matchValue(e, false) {
			return true, i
		}
	}
	return false, -1
}

// elemMatchDoc implements {$elemMatch: {field: ...}}: some document (or
// array, seen as a document keyed by index) element satisfies the filter.
type elemMatchDoc struct{ n node }

func (m elemMatchDoc) matchValue(v any, _ bool) bool {
	ok, _ := m.matchPos(v)
	return ok
}

func (m elemMatchDoc) matchPos(v any) (bool, int) {
	arr, ok := v.(bson.A)
	if !ok {
		return false, -1
	}
	for i, e := range arr {
		d, ok := asObject(e)
		if ok && m.n.match(d, &matchState{pos: -1}) {
			return true, i
		}
	}
	return false, -1
}

// asObject views a document or an array (keys "0", "1", ...) as a
// document, as BSONElement::Obj does.
func asObject(v any) (bson.D, bool) {
	switch x := v.(type) {
	case bson.D:
		return x, true
	case bson.A:
		d := make(bson.D, len(x))
		for i, e := range x {
			d[i] = bson.E{Key: strconv.Itoa(i), Value: e}
		}
		return d, true
	}
	return nil, false
}

// pathless operators take no field path; an $elemMatch argument starting
// with one of them is in document form.
var pathless = map[string]bool{
	"$and": true, "$or": true, "$nor": true, "$where": true, "$expr": true,
	"$text": true, "$comment": true, "$jsonSchema": true, "$alwaysTrue": true,
	"$alwaysFalse": true, "$sampleRate": true,
}

func (c *compiler) parseElemMatch(arg any, depth int) (opSpec, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return opSpec{}, badValue("$elemMatch needs an Object")
	}
	if depth > maxDepth {
		return opSpec{}, badValue("exceeded maximum query tree depth of %d", maxDepth)
	}
	if isOperatorDoc(d) && !pathless[d[0].Key] {
		specs, err := c.parseOps(d, depth+1)
		if err != nil {
			return opSpec{}, err
		}
		return opSpec{m: elemMatchValue(valueMatchers(specs)), noExpand: true}, nil
	}
	c.elemDepth++
	n, err := c.parseDoc(d, depth+1)
	c.elemDepth--
	if err != nil {
		return opSpec{}, err
	}
	return opSpec{m: elemMatchDoc{n: n}, noExpand: true}, nil
}

// parseAll implements $all: a conjunction of equalities (or regex matches),
// or of $elemMatch predicates when every element is one.
func (c *compiler) parseAll(arg any, depth int) (opSpec, error) {
	a, ok := arg.(bson.A)
	if !ok {
		return opSpec{}, badValue("$all needs an array")
	}
	if len(a) == 0 {
		return opSpec{never: true}, nil
	}
	var specs []opSpec
	for _, x := range a {
		s, err := c.parseAllElem(x, isElemMatchDoc(a[0]), depth)
		if err != nil {
			return opSpec{}, err
		}
		specs = append(specs, s)
	}
	return opSpec{all: specs}, nil
}

func (c *compiler) parseAllElem(x any, elemMatches bool, depth int) (opSpec, error) {
	if isElemMatchDoc(x) != elemMatches {
		return opSpec{}, badValue("$all/$elemMatch has to be consistent")
	}
	if elemMatches {
		return c.parseElemMatch(x.(bson.D)[0].Value, depth)
	}
	if r, ok := x.(bson.Regex); ok {
		m, err := newRegex(r.Pattern, r.Options)
		return opSpec{m: m}, err
	}
	if d, ok := x.(bson.D); ok && isOperatorDoc(d) {
		return opSpec{}, badValue("no $ expressions in $all")
	}
	return opSpec{m: cmpMatcher{op: opEq, rhs: x, coll: c.coll}}, nil
}

func isElemMatchDoc(x any) bool {
	d, ok := x.(bson.D)
	return ok && len(d) > 0 && d[0].Key == "$elemMatch"
}
