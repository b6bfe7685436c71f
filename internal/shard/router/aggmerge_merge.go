package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// writeMerge performs a $merge through the router: for each result, the
// target document matching its 'on' key is read (a find through the
// router), agg decides the write (MergeSpec.Apply) and the router sends
// it. Each document's write is atomic; the stage as a whole is not (as
// in MongoDB). On _id (the default) this is done mergeBatchDocs results
// at a time (mergeBatch); on other fields one result at a time.
// TODO(#15): batch merges on other fields too.
func (r *Router) writeMerge(c *call, mc *mergedCursor, m *agg.MergeSpec) error {
	if err := r.mergeOnChecked(c, m); err != nil { // merge_on.go
		return err
	}
	for {
		docs, done, err := r.pipeBatch(c, mc, mergeBatchDocs)
		if err != nil {
			return err
		}
		for len(docs) > 0 {
			n := min(len(docs), mergeBatchDocs)
			if err := r.mergeSome(c, m, docs[:n]); err != nil {
				return err
			}
			docs = docs[n:]
		}
		if done {
			return nil
		}
	}
}

// mergeBatchDocs bounds the results merged at once (and so the target
// documents read for them).
const mergeBatchDocs = 100

func (r *Router) mergeSome(c *call, m *agg.MergeSpec, docs []bson.D) error {
	if len(m.On) != 1 || m.On[0] != "_id" {
		for _, d := range docs {
			if err := r.mergeOne(c, m, d); err != nil {
				return err
			}
		}
		return nil
	}
	return r.mergeBatch(c, m, docs)
}

func (r *Router) mergeOne(c *call, m *agg.MergeSpec, d bson.D) error {
	doc, key, err := m.Prepare(d)
	if err != nil {
		return err
	}
	reply, err := r.subCommand(c, m.DB, bson.D{{Key: "find", Value: m.Coll}, {Key: "filter", Value: key},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}})
	if err != nil {
		return err
	}
	var existing bson.D
	if docs := firstBatch(reply); len(docs) > 0 {
		existing = docs[0]
	}
	next, action, err := m.Apply(existing, doc)
	if err != nil {
		return err
	}
	var cmd bson.D
	switch action {
	case agg.MergeInsert:
		cmd = bson.D{{Key: "insert", Value: m.Coll}, {Key: "documents", Value: bson.A{next}}}
	case agg.MergeReplace:
		id, _ := bsonx.Get(existing, "_id")
		q := append(bson.D{{Key: "_id", Value: id}}, withoutField(key, "_id")...)
		cmd = bson.D{{Key: "update", Value: m.Coll}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: q}, {Key: "u", Value: next}}}}} // next keeps existing's _id
	default:
		return nil
	}
	reply, err = r.subCommand(c, m.DB, withWC(c, cmd))
	if err != nil {
		return err
	}
	return writeReplyError(reply)
}

// hasUniqueIndexOn reports a unique, non-partial index of the target
// whose key fields are exactly m.On.
func (r *Router) hasUniqueIndexOn(c *call, m *agg.MergeSpec) (bool, error) {
	reply, err := r.subCommand(c, m.DB, bson.D{{Key: "listIndexes", Value: m.Coll}})
	if mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, ix := range firstBatch(reply) {
		if !truthy(ix, "unique") {
			continue
		}
		if _, partial := bsonx.Get(ix, "partialFilterExpression"); partial {
			continue
		}
		if sameFields(docField(ix, "key"), m.On) {
			return true, nil
		}
	}
	return false, nil
}

func sameFields(key bson.D, on []string) bool {
	if len(key) != len(on) {
		return false
	}
	seen := map[string]bool{}
	for _, k := range key {
		seen[k.Key] = true
	}
	for _, f := range on {
		if !seen[f] {
			return false
		}
	}
	return true
}
