package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Views (command/view.go defines them): a catalog collection whose first
// option is viewOn. ResolveView walks a view's chain to the collection
// under it, so that reads of a view, $lookup/$graphLookup/$unionWith
// included, run the views' pipelines over that collection.

// MaxViewDepth is MongoDB's limit on views defined on views.
const MaxViewDepth = 20

// ResolveView returns the collection under db.name and the pipelines of
// the views on the way (innermost first); for a collection (or a missing
// name) it returns name and a nil pipeline.
func (e *Engine) ResolveView(db, name string) (source string, pipeline bson.A, err error) {
	source = name
	seen := map[string]bool{}
	for depth := 0; ; depth++ {
		col := e.cat.Collection(db, source)
		if col == nil || len(col.Options) == 0 || col.Options[0].Key != "viewOn" {
			return source, pipeline, nil
		}
		if seen[source] {
			return "", nil, mongoerr.New(mongoerr.GraphContainsCycle, "View cycle detected: %s.%s", db, source)
		}
		if depth >= MaxViewDepth {
			return "", nil, mongoerr.New(mongoerr.ViewDepthLimitExceeded, "View depth too deep or view cycle detected. Maximum depth is %d", MaxViewDepth)
		}
		seen[source] = true
		var own bson.A
		for _, o := range col.Options {
			if o.Key == "pipeline" {
				own, _ = o.Value.(bson.A)
			}
		}
		pipeline = append(append(bson.A{}, own...), pipeline...)
		source, _ = col.Options[0].Value.(string)
	}
}
