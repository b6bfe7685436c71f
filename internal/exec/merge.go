package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// merge writes a pipeline's results into the $merge target: each result
// document is matched on the 'on' fields and inserted, replaced, discarded
// or fails as the spec says. Each document's write is atomic; the stage as
// a whole is not (as in MongoDB).
func (e *Engine) merge(in Iterator, m *agg.MergeSpec, bypass bool) error {
	defer in.Close()
	col, err := e.CollectionForWrite(m.DB, m.Coll)
	if err != nil {
		return err
	}
	if !m.OnDefaulted && !e.mergeOnUnique(m.DB, m.Coll, m.On) { // merge_on.go
		return mongoerr.New(mongoerr.MergeNoUniqueIndex, "Cannot find index to verify that join fields will be unique")
	}
	for {
		r, ok := in.Next()
		if !ok {
			return in.Err()
		}
		d, err := r.decoded()
		if err != nil {
			return err
		}
		if err := e.mergeOne(col.DB, col.Name, m, d, bypass); err != nil {
			return err
		}
	}
}

func (e *Engine) mergeOne(db, coll string, m *agg.MergeSpec, d bson.D, bypass bool) error {
	doc, key, err := m.Prepare(d)
	if err != nil {
		return err
	}
	existing, err := e.findOne(db, coll, key)
	if err != nil {
		return err
	}
	next, action, err := m.Apply(existing, doc)
	if err != nil {
		if me := mongoerr.From(err); me.Code == mongoerr.DuplicateKey {
			return &catalog.DuplicateKeyError{Err: me, KeyPattern: m.KeyPattern(), KeyValue: key}
		}
		return err
	}
	switch action {
	case agg.MergeInsert:
		res := e.InsertBypass(db, coll, []bson.D{next}, true, nil, bypass)
		if len(res.Errors) > 0 {
			we := res.Errors[0]
			if we.KeyPattern != nil {
				return &catalog.DuplicateKeyError{Err: we.Err, KeyPattern: we.KeyPattern, KeyValue: we.KeyValue}
			}
			return we.Err
		}
	case agg.MergeReplace:
		id, _ := bsonx.Get(existing, "_id")
		stmt := UpdateStmt{Q: bson.D{{Key: "_id", Value: id}}, U: withoutID(next), BypassValidation: bypass}
		res := e.Update(db, coll, []UpdateStmt{stmt}, true, nil, nil)
		if len(res.Errors) > 0 {
			return res.Errors[0].Err
		}
	}
	return nil
}

// findOne returns the first document matching filter, or nil.
func (e *Engine) findOne(db, coll string, filter bson.D) (bson.D, error) {
	it, _, err := e.Find(db, coll, FindParams{Filter: filter, Limit: 1})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	r, ok := it.Next()
	if !ok {
		return nil, it.Err()
	}
	return r.decoded()
}

func withoutID(d bson.D) bson.D {
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		if e.Key != "_id" {
			out = append(out, e)
		}
	}
	return out
}

// hasUniqueIndexOn reports a unique index whose key fields are exactly on.
func (e *Engine) hasUniqueIndexOn(db, coll string, on []string) bool {
	col := e.cat.Collection(db, coll)
	if col == nil {
		return false
	}
	for _, idx := range col.Indexes() {
		if !idx.Unique || len(idx.Key) != len(on) || idx.Partial != nil {
			continue
		}
		seen := map[string]bool{}
		for _, k := range idx.Key {
			seen[k.Key] = true
		}
		all := true
		for _, f := range on {
			all = all && seen[f]
		}
		if all {
			return true
		}
	}
	return false
}
