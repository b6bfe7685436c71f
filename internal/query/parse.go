package query

import (
	"strings"

	"github.com/relaydb/relaydb/internal/bsonx"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// compiler turns a filter document into a node tree.
type compiler struct {
	vars  *expr.Vars     // variables $expr may reference, or nil
	text  TextFunc       // decides $text (CompileText), or nil
	texts int            // $text clauses seen
	coll  bsonx.Collator // orders strings in comparisons; nil is binary
	// noWhere refuses $where (Options.NoWhere); elemDepth counts the
	// $elemMatch documents being parsed ($where is top-level only); sink
	// collects $where evaluation errors (where.go).
	noWhere   bool
	elemDepth int
	sink      *errSink
}

// opSpec is one parsed field operator, before it is bound to a path.
type opSpec struct {
	m        valueMatcher
	negate   bool     // $ne, $nin, $exists: false
	noExpand bool     // sees whole arrays only ($size, $elemMatch)
	not      []opSpec // $not: negation of the conjunction of these
	all      []opSpec // $all: conjunction, each its own path walk
	never    bool     // matches nothing ($all: [])
}

// parseDoc parses a filter document (top level, or inside $and/$or/$nor
// and document-form $elemMatch) into the conjunction of its fields.
func (c *compiler) parseDoc(filter bson.D, depth int) (node, error) {
	if depth > maxDepth {
		return nil, badValue("exceeded maximum query tree depth of %d", maxDepth)
	}
	var and andNode
	for _, e := range filter {
		n, err := c.parseElem(e, depth)
		if err != nil {
			return nil, err
		}
		if n != nil {
			and = append(and, n)
		}
	}
	if len(and) == 1 {
		return and[0], nil
	}
	return and, nil
}

func (c *compiler) parseElem(e bson.E, depth int) (node, error) {
	if strings.HasPrefix(e.Key, "$") {
		return c.parseTopOp(e, depth)
	}
	return c.parseField(e.Key, e.Value, depth)
}

func (c *compiler) parseTopOp(e bson.E, depth int) (node, error) {
	switch e.Key {
	case "$and", "$or", "$nor":
		return c.parseLogical(e.Key, e.Value, depth)
	case "$comment":
		return nil, nil
	case "$expr":
		return parseExpr(e.Value, c.vars, c.coll)
	case "$alwaysTrue", "$alwaysFalse":
		if !isOne(e.Value) {
			return nil, badValue("%s must be an integer value of 1", e.Key)
		}
		return constNode(e.Key == "$alwaysTrue"), nil
	case "$where":
		return c.parseWhere(e.Value)
	case "$text":
		return c.parseText()
	case "$jsonSchema":
		s, err := parseJSONSchema(e.Value)
		if err != nil {
			return nil, err
		}
		return schemaNode{s: s}, nil
	case "$sampleRate":
		return nil, notImplemented("$sampleRate is not supported")
	}
	return nil, badValue("unknown top level operator: %s. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.", e.Key)
}

func (c *compiler) parseLogical(op string, v any, depth int) (node, error) {
	a, ok := v.(bson.A)
	if !ok || len(a) == 0 {
		return nil, badValue("%s must be a nonempty array", op)
	}
	children := make([]node, 0, len(a))
	for _, x := range a {
		d, ok := x.(bson.D)
		if !ok {
			return nil, badValue("$or/$and/$nor entries need to be full objects")
		}
		n, err := c.parseDoc(d, depth+1)
		if err != nil {
			return nil, err
		}
		children = append(children, n)
	}
	switch op {
	case "$and":
		return andNode(children), nil
	case "$or":
		return orNode(children), nil
	}
	return norNode(children), nil
}

// parseField parses {path: value}: a regex, an operator document, or an
// equality.
func (c *compiler) parseField(path string, v any, depth int) (node, error) {
	var specs []opSpec
	switch x := v.(type) {
	case bson.Regex:
		m, err := newRegex(x.Pattern, x.Options)
		if err != nil {
			return nil, err
		}
		specs = []opSpec{{m: m}}
	case bson.D:
		if !isOperatorDoc(x) {
			specs = []opSpec{{m: cmpMatcher{op: opEq, rhs: x, coll: c.coll}}}
			break
		}
		var err error
		if specs, err = c.parseOps(x, depth); err != nil {
			return nil, err
		}
	default:
		specs = []opSpec{{m: cmpMatcher{op: opEq, rhs: v, coll: c.coll}}}
	}
	return pathNodes(path, specs), nil
}

// isOperatorDoc reports whether d is an operator document ({$gt: 1}) rather
// than a literal (including DBRefs, whose first field is $ref).
func isOperatorDoc(d bson.D) bool {
	if len(d) == 0 || !strings.HasPrefix(d[0].Key, "$") {
		return false
	}
	switch d[0].Key {
	case "$ref", "$id", "$db":
		return false
	}
	return true
}

func isOne(v any) bool {
	switch x := v.(type) {
	case int32:
		return x == 1
	case int64:
		return x == 1
	case float64:
		return x == 1
	}
	return false
}
