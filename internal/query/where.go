package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// whereNode is a $where clause: a JavaScript predicate (expr.Script) on the
// whole document. An evaluation error (an exception, a timeout) makes the
// document not match and is recorded in the matcher's sink, where the
// executor finds it (Matcher.Err) and fails the operation.
type whereNode struct {
	pred func(doc bson.D) (bool, error)
	sink *errSink
}

func (n whereNode) match(doc bson.D, _ *matchState) bool {
	if n.sink.err != nil {
		return false
	}
	ok, err := n.pred(doc)
	if err != nil {
		n.sink.err = err
		return false
	}
	return ok
}

// errSink holds the first evaluation error of a matcher's $where clauses.
type errSink struct{ err error }

// parseWhere compiles a $where clause: a string or Code (not Code with
// scope, gone since MongoDB 4.4), at the top level only, where the
// caller allows JavaScript.
func (c *compiler) parseWhere(v any) (node, error) {
	if c.noWhere {
		return nil, badValue("$where is not allowed in this context")
	}
	if c.elemDepth > 0 {
		return nil, badValue("$where can only be applied to the top-level document")
	}
	var code string
	switch x := v.(type) {
	case string:
		code = x
	case bson.JavaScript:
		code = string(x)
	case bson.CodeWithScope:
		return nil, codeErr(mongoerr.JSWhereCodeWScope, "$where no longer supports deprecated BSON type CodeWScope")
	default:
		return nil, badValue("$where got bad type")
	}
	if code == "" {
		return nil, badValue("code for $where cannot be empty")
	}
	s := expr.ScriptFor(c.vars)
	if s == nil {
		return nil, codeErr(mongoerr.JSWhereNoEngine, "no globalScriptEngine in $where parsing")
	}
	pred, err := s.Where(code)
	if err != nil {
		return nil, err
	}
	if c.sink == nil {
		c.sink = &errSink{}
	}
	return whereNode{pred: pred, sink: c.sink}, nil
}
