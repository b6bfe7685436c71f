package exec

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ExplainFindStats is ExplainFind at verbosity executionStats: it also
// runs the query to its end (reading only, as explain never writes) and
// returns MongoDB's executionStats: nReturned, executionTimeMillis,
// totalKeysExamined, totalDocsExamined and the winning plan's stages with
// the counts on the stages that did the work. Documents examined are those
// the scan fetched before the filter (a limit stops the scan early); keys
// examined are the index entries read, one per fetched document (an index
// scan never reads an entry it does not fetch). Memory stays bounded:
// results are counted, not kept (a blocking sort keeps what find keeps).
func (e *Engine) ExplainFindStats(db, coll string, p FindParams) (qp, stats bson.D, err error) {
	start := time.Now()
	var examined int64
	p.examined = &examined
	it, plan, err := e.Find(db, coll, p)
	if err != nil {
		return nil, nil, err
	}
	n, err := drain(it)
	if err != nil {
		return nil, nil, err
	}
	millis := time.Since(start).Milliseconds()
	keys := int64(0)
	if plan.Kind == "IXSCAN" || plan.Kind == "IDHACK" || plan.Kind == "TEXT" {
		keys = examined
	}
	p.examined = nil
	qp = queryPlanner(db, coll, plan, p)
	stages := withCounts(planDoc(plan, p), n, millis, keys, examined)
	return qp, bson.D{
		{Key: "executionSuccess", Value: true},
		{Key: "nReturned", Value: n},
		{Key: "executionTimeMillis", Value: millis},
		{Key: "totalKeysExamined", Value: keys},
		{Key: "totalDocsExamined", Value: examined},
		{Key: "executionStages", Value: stages},
	}, nil
}

// drain counts an iterator's rows and closes it.
func drain(it Iterator) (int64, error) {
	defer it.Close()
	var n int64
	for {
		if _, ok := it.Next(); !ok {
			return n, it.Err()
		}
		n++
	}
}

// countIter counts the rows its input yields.
type countIter struct {
	in Iterator
	n  *int64
}

func (c *countIter) Next() (*Row, bool) {
	r, ok := c.in.Next()
	if ok {
		*c.n++
	}
	return r, ok
}

func (c *countIter) Err() error   { return c.in.Err() }
func (c *countIter) Close() error { return c.in.Close() }

// withCounts annotates a plan's stage tree: the root gets nReturned and
// the time, the scans their keys and documents examined.
func withCounts(stage bson.D, n, millis, keys, docs int64) bson.D {
	counted := annotate(stage, keys, docs)
	out := append(bson.D{}, counted[0])
	out = append(out, bson.E{Key: "nReturned", Value: n}, bson.E{Key: "executionTimeMillisEstimate", Value: millis})
	return append(out, counted[1:]...)
}

func annotate(stage bson.D, keys, docs int64) bson.D {
	out := make(bson.D, 0, len(stage)+2)
	for _, f := range stage {
		if in, ok := f.Value.(bson.D); ok && f.Key == "inputStage" && len(in) > 0 {
			f.Value = annotate(in, keys, docs)
		}
		out = append(out, f)
	}
	switch name, _ := stage[0].Value.(string); name {
	case "IXSCAN":
		out = append(out, bson.E{Key: "keysExamined", Value: keys})
	case "IDHACK":
		out = append(out, bson.E{Key: "keysExamined", Value: keys}, bson.E{Key: "docsExamined", Value: docs})
	case "FETCH", "COLLSCAN":
		out = append(out, bson.E{Key: "docsExamined", Value: docs})
	}
	return out
}
