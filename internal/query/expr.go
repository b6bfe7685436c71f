package query

import (
	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// exprNode implements $expr: the aggregation expression's truthiness.
// Evaluation errors make the document not match.
// TODO(#2): surface $expr evaluation errors to the client as MongoDB does.
type exprNode struct {
	e    expr.Expr
	vars *expr.Vars // compile-time variables ($$NOW, let), or nil
}

func (n exprNode) match(doc bson.D, st *matchState) bool {
	vars := n.vars
	if st.vars != nil {
		vars = st.vars
	}
	v, err := n.e.Eval(doc, vars.WithRoot(doc))
	return err == nil && expr.Truthy(v)
}

func parseExpr(v any, vars *expr.Vars, coll bsonx.Collator) (node, error) {
	e, err := expr.CompileColl(v, vars.Names(), coll)
	if err != nil {
		return nil, err
	}
	return exprNode{e: e, vars: vars}, nil
}
