package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// documentsStage is $documents: it ignores its input and yields the
// documents of an array expression evaluated once (against an empty
// document: only constants and variables make sense). It belongs first in
// a database-level aggregate ({aggregate: 1}), whose input is empty.
type documentsStage struct{ e expr.Expr }

func compileDocuments(spec any, cc *compileCtx) ([]stage, error) {
	e, err := cc.compileExpr(spec)
	if err != nil {
		return nil, err
	}
	return []stage{&documentsStage{e: e}}, nil
}

func (s *documentsStage) run(in Iterator, rc *runCtx) Iterator {
	var out Iterator
	return iterx.Func(func() (bson.D, bool, error) {
		if out == nil {
			docs, err := s.eval(rc)
			if err != nil {
				return nil, false, err
			}
			out = Slice(docs)
		}
		return pull(out)
	}, in.Close)
}

func (s *documentsStage) eval(rc *runCtx) ([]bson.D, error) {
	v, err := s.e.Eval(bson.D{}, rc.varsFor(bson.D{}))
	if err != nil {
		return nil, err
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.DocumentsNotArray, "error during $documents evaluation: an array is expected")
	}
	docs := make([]bson.D, len(arr))
	for i, el := range arr {
		d, ok := el.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.ReplacementNotObject, "'replacement document' must evaluate to an object, but resulting value was: %v. Type of resulting value: '%s'.", el, typeOf(el))
		}
		docs[i] = d
	}
	return docs, nil
}
