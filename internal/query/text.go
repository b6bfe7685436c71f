package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TextFunc decides a $text clause for one document (the caller binds it
// to the collection's text index: internal/text).
type TextFunc func(doc bson.D) bool

// CompileText is CompileWithVars for a filter whose $text clause, if it
// has one, text decides. Without text a $text clause is IndexNotFound, as
// for a collection with no text index.
func CompileText(filter bson.D, vars *expr.Vars, text TextFunc) (*Matcher, error) {
	return CompileOptions(filter, Options{Vars: vars, Text: text})
}

// Options are what a filter is compiled with besides the filter.
type Options struct {
	Vars *expr.Vars // as in CompileWithVars; may be nil
	Text TextFunc   // as in CompileText; may be nil
	// Collator orders strings in $eq, $ne, $lt.., $in, $nin, $all and
	// equality (inside arrays and documents too); nil is the simple
	// collation; $expr's comparison operators and $in use it too.
	// Regular expressions ignore it.
	Collator bsonx.Collator
	// NoWhere refuses $where (an aggregation $match): BadValue, as mongod.
	// Otherwise $where runs on Vars.Script (expr.ScriptFor). Compile and
	// CompileWithVars always refuse it (validators, partial indexes,
	// lookups).
	NoWhere bool
}

// CompileOptions compiles a filter with o.
func CompileOptions(filter bson.D, o Options) (*Matcher, error) {
	c := &compiler{vars: o.Vars, text: o.Text, coll: o.Collator, noWhere: o.NoWhere}
	root, err := c.parseDoc(filter, 0)
	if err != nil {
		return nil, err
	}
	return &Matcher{root: root, sink: c.sink}, nil
}

// textNode is a $text clause.
type textNode struct{ fn TextFunc }

func (n textNode) match(doc bson.D, _ *matchState) bool { return n.fn(doc) }

// parseText compiles a $text clause: at most one per filter.
func (c *compiler) parseText() (node, error) {
	c.texts++
	if c.texts > 1 {
		return nil, badValue("Too many text expressions")
	}
	if c.text == nil {
		return nil, codeErr(mongoerr.IndexNotFound, "text index required for $text query")
	}
	return textNode{fn: c.text}, nil
}

// TextClause finds filter's $text clause (at the top level or under
// $and/$or, where MongoDB allows one): its argument, whether an $or is
// above it, and how many $text clauses the filter has.
func TextClause(filter bson.D) (arg any, underOr bool, n int) {
	for _, e := range filter {
		switch e.Key {
		case "$text":
			if n == 0 {
				arg = e.Value
			}
			n++
		case "$and", "$or", "$nor":
			a, _ := e.Value.(bson.A)
			for _, x := range a {
				d, _ := x.(bson.D)
				sub, subOr, k := TextClause(d)
				if k > 0 && n == 0 {
					arg, underOr = sub, subOr || e.Key != "$and"
				}
				n += k
			}
		}
	}
	return arg, underOr, n
}
