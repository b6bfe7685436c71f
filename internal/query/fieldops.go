package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// parseOps parses an operator document ({$gt: 1, $lt: 5}) into one spec
// per operator ($regex and $options together make one).
func (c *compiler) parseOps(ops bson.D, depth int) ([]opSpec, error) {
	if hasNear(ops) {
		return parseNearOps(ops)
	}
	specs := make([]opSpec, 0, len(ops))
	regexDone := false
	for _, e := range ops {
		if e.Key == "$regex" || e.Key == "$options" {
			if regexDone {
				continue
			}
			regexDone = true
			m, err := parseRegexOp(ops)
			if err != nil {
				return nil, err
			}
			specs = append(specs, opSpec{m: m})
			continue
		}
		s, err := c.parseOp(e.Key, e.Value, depth)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

var cmpOps = map[string]cmpOp{"$eq": opEq, "$lt": opLt, "$lte": opLte, "$gt": opGt, "$gte": opGte}

func (c *compiler) parseOp(name string, arg any, depth int) (opSpec, error) {
	if op, ok := cmpOps[name]; ok {
		return parseCmp(name, op, arg, c.coll)
	}
	if op, ok := bitsOps[name]; ok {
		m, err := parseBits(name, op, arg)
		return opSpec{m: m}, err
	}
	switch name {
	case "$ne":
		if _, ok := arg.(bson.Regex); ok {
			return opSpec{}, badValue("Can't have regex as arg to $ne.")
		}
		s, err := parseCmp(name, opEq, arg, c.coll)
		s.negate = true
		return s, err
	case "$in", "$nin":
		m, err := parseIn(name, arg, c.coll)
		return opSpec{m: m, negate: name == "$nin"}, err
	case "$exists":
		return opSpec{m: existsMatcher{}, negate: !truthy(arg)}, nil
	case "$type":
		m, err := parseType(arg)
		return opSpec{m: m}, err
	case "$mod":
		m, err := parseMod(arg)
		return opSpec{m: m}, err
	case "$size":
		m, err := parseSize(arg)
		return opSpec{m: m, noExpand: true}, err
	case "$all":
		return c.parseAll(arg, depth)
	case "$elemMatch":
		return c.parseElemMatch(arg, depth)
	case "$not":
		return c.parseNot(arg, depth)
	case "$geoWithin", "$geoIntersects", "$within":
		return parseGeoOp(name, arg)
	case "$near", "$nearSphere":
		return opSpec{}, badValue("geo near accepts just one argument when querying for a GeoJSON point. Extra field found: %s", name)
	case "$where":
		return opSpec{}, badValue("$where cannot be applied to a field")
	}
	return opSpec{}, badValue("unknown operator: %s", name)
}

func parseCmp(name string, op cmpOp, arg any, coll bsonx.Collator) (opSpec, error) {
	switch arg.(type) {
	case bson.Undefined:
		return opSpec{}, badValue("cannot compare to undefined")
	case bson.Regex:
		if op != opEq {
			return opSpec{}, badValue("Can't have RegEx as arg to predicate over field: %s", name)
		}
	}
	return opSpec{m: cmpMatcher{op: op, rhs: arg, coll: coll}}, nil
}

func parseIn(name string, arg any, coll bsonx.Collator) (*inMatcher, error) {
	a, ok := arg.(bson.A)
	if !ok {
		return nil, badValue("%s needs an array", name)
	}
	m := &inMatcher{coll: coll}
	for _, x := range a {
		switch v := x.(type) {
		case bson.Regex:
			r, err := newRegex(v.Pattern, v.Options)
			if err != nil {
				return nil, err
			}
			m.regexes = append(m.regexes, r)
			continue
		case bson.D:
			if isOperatorDoc(v) {
				return nil, badValue("cannot nest $ under %s", name)
			}
		case bson.Undefined:
			return nil, badValue("InMatchExpression equality cannot be undefined")
		}
		m.hasNull = m.hasNull || isNull(x)
		m.values = append(m.values, x)
	}
	return m, nil
}

func (c *compiler) parseNot(arg any, depth int) (opSpec, error) {
	switch x := arg.(type) {
	case bson.Regex:
		m, err := newRegex(x.Pattern, x.Options)
		return opSpec{not: []opSpec{{m: m}}}, err
	case bson.D:
		if len(x) == 0 {
			return opSpec{}, badValue("$not cannot be empty")
		}
		if depth > maxDepth {
			return opSpec{}, badValue("exceeded maximum query tree depth of %d", maxDepth)
		}
		specs, err := c.parseOps(x, depth+1)
		return opSpec{not: specs}, err
	}
	return opSpec{}, badValue("$not needs a regex or a document")
}

// pathNodes binds parsed operators to a path.
func pathNodes(path string, specs []opSpec) node {
	if len(specs) == 1 {
		return specNode(path, specs[0])
	}
	and := make(andNode, len(specs))
	for i, s := range specs {
		and[i] = specNode(path, s)
	}
	return and
}

func specNode(path string, s opSpec) node {
	switch {
	case s.never:
		return constNode(false)
	case s.not != nil:
		return notNode{pathNodes(path, s.not)}
	case s.all != nil:
		return pathNodes(path, s.all)
	}
	var n node = pathNode{w: newWalker(path, !s.noExpand), m: s.m}
	if s.negate {
		n = notNode{n}
	}
	return n
}

// valueMatchers turns parsed operators into predicates on a single value
// (the value form of $elemMatch).
func valueMatchers(specs []opSpec) []valueMatcher {
	ms := make([]valueMatcher, len(specs))
	for i, s := range specs {
		ms[i] = specValue(s)
	}
	return ms
}

func specValue(s opSpec) valueMatcher {
	switch {
	case s.never:
		return constValue(false)
	case s.not != nil:
		return notValue{andValue(valueMatchers(s.not))}
	case s.all != nil:
		return andValue(valueMatchers(s.all))
	case s.negate:
		return notValue{s.m}
	}
	return s.m
}

type constValue bool

func (c constValue) matchValue(any, bool) bool { return bool(c) }
