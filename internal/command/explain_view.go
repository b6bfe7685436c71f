package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Explain on a view (MongoDB explains the aggregate the read becomes): a
// find, count, distinct or aggregate of a view is planned on the
// collection under the view chain, with the view's leading $match (or,
// for a view without a pipeline, the read's own filter, sort, skip and
// limit) as the query; queryPlanner.namespace names that collection and
// command the read as sent. On a shard whose view collection is sharded
// the view check answers 169 and the router explains the re-run
// aggregate (view_sharded.go). Writes explained on a view are
// CommandNotSupportedOnView, as they are when run.

// viewExplainReads are the explained commands a view answers.
var viewExplainReads = map[string]bool{"find": true, "count": true, "distinct": true, "aggregate": true}

// explainOnView returns the collection and query to plan for an explain
// of sub (the explained command) when coll is a view; view is false when
// it is not one.
func explainOnView(sub *Ctx, coll string, q exec.FindParams) (source string, plan exec.FindParams, view bool, err error) {
	col := sub.D.eng.Catalog().Collection(sub.DB, coll)
	if !isView(col) {
		return coll, q, false, nil
	}
	if !viewExplainReads[sub.Name] {
		return "", q, true, mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s is a view, not a collection", sub.ns(coll))
	}
	def, err := sub.view(coll)
	if err != nil {
		return "", q, true, err
	}
	if len(def.pipeline) == 0 {
		return def.source, q, true, nil
	}
	return def.source, exec.FindParams{Filter: firstMatch(def.pipeline), Owned: q.Owned}, true, nil
}

// firstMatch is the filter of pipeline's first stage when it is a $match.
func firstMatch(pipeline bson.A) bson.D {
	if len(pipeline) == 0 {
		return nil
	}
	if st, ok := pipeline[0].(bson.D); ok && len(st) == 1 && st[0].Key == "$match" {
		d, _ := st[0].Value.(bson.D)
		return d
	}
	return nil
}
