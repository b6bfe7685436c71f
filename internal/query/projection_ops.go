package query

import (
	"strings"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// addDocValue handles a document value: a projection operator ($slice,
// $elemMatch, $meta), an expression ({$add: ...}) or a nested projection.
func (b *projBuilder) addDocValue(path string, d bson.D) error {
	if len(d) == 0 {
		return codeErr(mongoerr.ProjectEmptySubProjection, "An empty sub-projection is not a valid value. Found empty object at path %s", path)
	}
	if !strings.HasPrefix(d[0].Key, "$") {
		return b.addDoc(path+".", d)
	}
	switch d[0].Key {
	case "$slice":
		return b.addSlice(path, d)
	case "$elemMatch":
		return b.addElemMatch(path, d)
	case "$meta":
		// TODO(#2): $meta projections (textScore, searchScore, ...).
		return notImplemented("$meta projection is not supported")
	}
	return b.addExpr(path, d)
}

func (b *projBuilder) addExpr(path string, v any) error {
	e, err := expr.Compile(v)
	if err != nil {
		return err
	}
	if b.mode == modeExclusion {
		return codeErr(mongoerr.ProjectExclusionExpression, "Cannot use expression other than $meta in exclusion projection")
	}
	b.mode = modeInclusion
	n, err := b.leaf(path)
	if err != nil {
		return err
	}
	n.expr = e
	b.markComputed(path)
	return nil
}

// markComputed flags the nodes on path so Apply creates missing parents.
func (b *projBuilder) markComputed(path string) {
	n := b.p.root
	for _, part := range strings.Split(path, ".") {
		n = n.children[part]
		n.computed = true
	}
}

func (b *projBuilder) addSlice(path string, d bson.D) error {
	if len(d) != 1 {
		return badValue("$slice projection must have exactly one argument: %s", path)
	}
	s, err := parseSlice(d[0].Value)
	if err != nil {
		return err
	}
	n, err := b.leaf(path)
	if err == nil {
		n.slice = s
	}
	return err
}

func (b *projBuilder) addElemMatch(path string, d bson.D) error {
	if strings.Contains(path, ".") {
		return codeErr(mongoerr.ProjectElemMatchNested, "Cannot use $elemMatch projection on a nested field.")
	}
	if len(d) != 1 {
		return badValue("$elemMatch projection must have exactly one argument: %s", path)
	}
	c := &compiler{noWhere: true}
	s, err := c.parseElemMatch(d[0].Value, 0)
	if err != nil {
		return err
	}
	if err := b.setMode(path, true); err != nil {
		return err
	}
	n, err := b.leaf(path)
	if err == nil {
		n.elemMatch = s.m.(posMatcher)
	}
	return err
}

func (b *projBuilder) addPositional(path string, v any) error {
	if b.p.positional {
		return codeErr(mongoerr.ProjectMultiplePositional, "Cannot specify more than one positional projection per query.")
	}
	if !isBoolish(v) || !truthy(v) {
		return codeErr(mongoerr.ProjectPositionalWithExclusion, "positional projection cannot be used with exclusion")
	}
	if err := b.setMode(path+".$", true); err != nil {
		return err
	}
	n, err := b.leaf(path)
	if err == nil {
		n.position = true
		b.p.positional = true
	}
	return err
}

// sliceSpec is {$slice: n} (skip 0, limit n; negative n counts from the
// end) or {$slice: [skip, limit]}.
type sliceSpec struct {
	skip, limit int64
	onlyLimit   bool
}

func parseSlice(v any) (*sliceSpec, error) {
	if a, ok := v.(bson.A); ok {
		if len(a) != 2 {
			return nil, codeErr(mongoerr.SliceBadArgument, "First argument to $slice must be an array of 2 numbers")
		}
		skip, ok1 := sliceNum(a[0])
		limit, ok2 := sliceNum(a[1])
		if !ok1 || !ok2 {
			return nil, codeErr(mongoerr.SliceBadArgument, "$slice arguments must be numeric")
		}
		if limit <= 0 {
			return nil, codeErr(mongoerr.SliceBadArgument, "$slice limit must be positive")
		}
		return &sliceSpec{skip: skip, limit: limit}, nil
	}
	n, ok := sliceNum(v)
	if !ok {
		return nil, codeErr(mongoerr.ProjectSliceBadType, "$slice only supports numbers and [skip, limit] arrays")
	}
	return &sliceSpec{limit: n, onlyLimit: true}, nil
}

func sliceNum(v any) (int64, bool) {
	f, ok := bsonx.AsFloat64(v)
	if !ok || f != f {
		return 0, false
	}
	return truncInt64(f), true
}

// apply returns the selected elements of arr.
func (s *sliceSpec) apply(arr bson.A) bson.A {
	n := int64(len(arr))
	start, count := s.skip, s.limit
	if s.onlyLimit {
		start, count = 0, s.limit
		if s.limit < 0 {
			start, count = n+s.limit, -s.limit
		}
	} else if start < 0 {
		start += n
	}
	start = max(0, min(start, n))
	end := min(n, start+min(count, n))
	return append(bson.A{}, arr[start:end]...)
}
