package query

import (
	"github.com/relaydb/relaydb/internal/agg/expr"
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

func parseExpr(v any, vars *expr.Vars) (node, error) {
	e, err := expr.CompileWithVars(v, vars.Names())
	if err != nil {
		return nil, err
	}
	return exprNode{e: e, vars: vars}, nil
}
