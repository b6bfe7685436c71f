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
		if !isTextScoreMeta(e.Value) {
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

// requireTextScore makes a $sort on {$meta: "textScore"} fail with
// Location40218 on a document without a score (as MongoDB's, rather than
// sorting it as null): one that did not come from a $text query, or a
// router's merger reading documents the shards returned without it.
// TODO(#14): sharded pipelines sorting by textScore (the shards would
// have to return the score with their documents).
func requireTextScore(in Iterator, spec bson.D) Iterator {
	need := false
	for _, e := range spec {
		need = need || isTextScoreMeta(e.Value)
	}
	if !need {
		return in
	}
	return mapIter(in, func(d bson.D) (bson.D, error) {
		for _, e := range d {
			if e.Key == expr.TextScoreField {
				return d, nil
			}
		}
		return nil, mongoerr.New(mongoerr.TextScoreUnavailable, "query requires text score metadata, but it is not available")
	})
}

// isTextScoreMeta reports {$meta: "textScore"}.
func isTextScoreMeta(v any) bool {
	m, ok := v.(bson.D)
	return ok && len(m) == 1 && m[0].Key == "$meta" && m[0].Value == "textScore"
}
