package expr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TextScoreField is the field a $text query's documents carry their
// text score in while they flow through a find or a pipeline; the
// executor removes it from what it returns. No stored document can hold
// it: BSON field names cannot contain NUL.
const TextScoreField = "\x00textScore"

// registerMeta adds $meta: {$meta: "textScore"} is the document's text
// score (TextScoreField); without one it is Location40218, as MongoDB's.
// TODO(#14): the other $meta kinds (searchScore, indexKey, randVal,
// sortKey, recordId, geoNearDistance, ...).
func registerMeta() {
	operators["$meta"] = func(name string, raw any, _ *scope) (Expr, error) {
		if s, _ := raw.(string); s != "textScore" {
			return nil, errf(mongoerr.NotImplemented, "%s %v is not supported", name, raw)
		}
		return funcExpr(func(doc bson.D, _ *Vars) (any, error) {
			for _, e := range doc {
				if e.Key == TextScoreField {
					return e.Value, nil
				}
			}
			return nil, errf(mongoerr.TextScoreUnavailable, "query requires text score metadata, but it is not available")
		}), nil
	}
}
