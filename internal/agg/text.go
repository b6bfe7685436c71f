package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// matchText decides the $text of a $match: in a pipeline's first stage
// the executor already applied it when it read the collection
// (Pipeline.FirstMatch), so every document reaching the stage passes;
// elsewhere it is Location17313, as in MongoDB.
func matchText(filter bson.D, cc *compileCtx) (query.TextFunc, error) {
	if _, _, n := query.TextClause(filter); n == 0 {
		return nil, nil
	}
	if !cc.first {
		return nil, mongoerr.New(mongoerr.TextMatchNotFirst, "$match with $text is only allowed as the first pipeline stage")
	}
	return func(bson.D) bool { return true }, nil
}

// textScoreSort turns {$meta: "textScore"} sort keys into the score's
// field (expr.TextScoreField), higher scores first.
func textScoreSort(spec bson.D) bson.D {
	var out bson.D
	for i, e := range spec {
		m, ok := e.Value.(bson.D)
		if !ok || len(m) != 1 || m[0].Key != "$meta" || m[0].Value != "textScore" {
			continue
		}
		if out == nil {
			out = append(bson.D(nil), spec...)
		}
		out[i] = bson.E{Key: expr.TextScoreField, Value: int32(-1)}
	}
	if out == nil {
		return spec
	}
	return out
}

// keepTextScore carries a document's text score (expr.TextScoreField)
// through a $project that does not name it, as MongoDB keeps metadata.
func keepTextScore(in bson.D) func(bson.D, error) (bson.D, error) {
	return func(out bson.D, err error) (bson.D, error) {
		if err != nil {
			return out, err
		}
		for _, e := range in {
			if e.Key == expr.TextScoreField {
				for _, o := range out {
					if o.Key == expr.TextScoreField {
						return out, nil
					}
				}
				return append(out, e), nil
			}
		}
		return out, nil
	}
}
