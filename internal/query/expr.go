package query

import (
	"time"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// exprNode implements $expr: the aggregation expression's truthiness.
// Evaluation errors make the document not match.
// TODO(#2): surface $expr evaluation errors to the client as MongoDB does.
type exprNode struct{ e expr.Expr }

func (n exprNode) match(doc bson.D, _ *matchState) bool {
	v, err := n.e.Eval(doc, expr.NewVars(doc, time.Time{}))
	return err == nil && expr.Truthy(v)
}

func parseExpr(v any) (node, error) {
	e, err := expr.Compile(v)
	if err != nil {
		return nil, err
	}
	return exprNode{e: e}, nil
}
