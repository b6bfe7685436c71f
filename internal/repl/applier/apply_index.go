package applier

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// createIndex builds the index whose spec is e.O minus its first field,
// unless an index of that name (or a conflicting one) already exists.
// TODO(#4): build in the background so a long build does not stall
// replication (MongoDB's two-phase index builds).
func (a *entryApply) createIndex(ns string) error {
	coll := a.resolve(ns)
	if coll == nil {
		return a.skip("collection not found")
	}
	created, err := a.w.CreateIndex(coll, append(bson.D(nil), a.e.O[1:]...))
	if isIndexConflict(err) || (err == nil && !created) {
		return a.skip("index exists")
	}
	return err
}

// isIndexConflict reports an existing index that conflicts with a new one.
func isIndexConflict(err error) bool {
	var me *mongoerr.Error
	return errors.As(err, &me) &&
		(me.Code == mongoerr.IndexKeySpecsConflict || me.Code == mongoerr.IndexOptionsConflict)
}

// dropIndexes drops the index o.index names (a name, "*", or a key
// pattern), if present.
func (a *entryApply) dropIndexes(ns string) error {
	coll := a.resolve(ns)
	if coll == nil {
		return a.skip("collection not found")
	}
	names := dropNames(a.cat, coll, a.e.O[1:])
	if len(names) == 0 {
		return a.skip("index not found")
	}
	n, err := a.w.DropIndexes(coll, names)
	if err != nil || n == 0 {
		return orSkip(err, a, "index not found")
	}
	return nil
}

// dropNames returns the names of coll's indexes (never _id_) that the
// index fields of a dropIndexes entry name.
func dropNames(cat *catalog.Catalog, coll *catalog.Collection, fields bson.D) []string {
	drop := map[string]bool{}
	for _, f := range fields {
		if f.Key != "index" {
			continue
		}
		switch v := f.Value.(type) {
		case string:
			for _, idx := range coll.Indexes() {
				drop[idx.Name] = drop[idx.Name] || (!idx.IsID() && (v == "*" || v == idx.Name))
			}
		case bson.D:
			if idx := cat.IndexByKey(coll, v); idx != nil && !idx.IsID() {
				drop[idx.Name] = true
			}
		}
	}
	var names []string
	for _, idx := range coll.Indexes() {
		if drop[idx.Name] {
			names = append(names, idx.Name)
		}
	}
	return names
}
