package applier

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// command applies a "c" entry: every command the primary's catalog logs
// (create, drop, createIndexes, dropIndexes, renameCollection,
// dropDatabase, collMod).
func (a *entryApply) command() error {
	e := a.e
	if len(e.O) == 0 {
		return fmt.Errorf("command entry has an empty o")
	}
	if e.O[0].Key == "applyOps" { // a transaction's commit (apply_txn.go)
		return a.applyOps()
	}
	db, _, _ := strings.Cut(e.NS, ".")
	name, _ := e.O[0].Value.(string)
	if name == "" && e.O[0].Key != "dropDatabase" {
		return fmt.Errorf("command entry %v names no collection", e.O)
	}
	switch e.O[0].Key {
	case "create":
		return a.create(db, name)
	case "drop":
		return a.drop(db + "." + name)
	case "createIndexes":
		return a.createIndex(db + "." + name)
	case "dropIndexes", "deleteIndexes":
		return a.dropIndexes(db + "." + name)
	case "renameCollection":
		return a.rename(name)
	case "dropDatabase":
		return a.dropDatabase(db)
	case "collMod":
		return a.collMod(db + "." + name)
	}
	return fmt.Errorf("unsupported command %q in oplog entry", e.O[0].Key)
}

// create creates db.name with the entry's UUID and options.
func (a *entryApply) create(db, name string) error {
	if a.cat.Collection(db, name) != nil {
		return a.skip("collection exists")
	}
	var uuid bson.Binary
	if ui := a.e.UI; ui != nil {
		if a.cat.CollectionByUUID(*ui) != nil {
			return a.skip("collection UUID exists (renamed later)")
		}
		uuid = *ui
	}
	var opts bson.D
	for _, f := range a.e.O[1:] {
		if f.Key != "idIndex" {
			opts = append(opts, f)
		}
	}
	_, err := a.w.CreateCollection(db, name, uuid, opts, nil)
	return err
}

// collMod merges the entry's options into the collection's (validators
// and the like: the applier itself never validates documents) and applies
// its index change (hidden, expireAfterSeconds).
func (a *entryApply) collMod(ns string) error {
	coll := a.resolve(ns)
	if coll == nil {
		return a.skip("collection not found")
	}
	_, _, err := a.w.CollMod(coll, a.e.O[1:])
	if mongoerr.Is(err, mongoerr.IndexNotFound) {
		return a.skip("index not found")
	}
	return err
}

// drop drops the collection (by UUID), if present.
func (a *entryApply) drop(ns string) error {
	coll := a.resolve(ns)
	if coll == nil {
		return a.skip("collection not found")
	}
	return a.w.DropCollection(coll)
}

// dropDatabase drops every collection left in db in one batch (the
// primary logged a drop for each before this entry).
func (a *entryApply) dropDatabase(db string) error {
	for _, coll := range a.cat.Collections(db) {
		if err := a.w.DropCollection(coll); err != nil {
			return err
		}
	}
	return nil
}

// rename moves the collection (by UUID) to o.to, dropping an existing
// target, as the primary did.
func (a *entryApply) rename(from string) error {
	to, _ := lookupString(a.e.O, "to")
	toDB, toName, ok := strings.Cut(to, ".")
	if !ok {
		return fmt.Errorf("renameCollection entry has no valid 'to': %v", a.e.O)
	}
	src := a.resolve(from)
	if src == nil || src.NS() == to {
		return a.skip("source not found or already renamed")
	}
	return a.w.RenameCollection(src, toDB, toName)
}

// lookupString returns d[key] as a string.
func lookupString(d bson.D, key string) (string, bool) {
	for _, f := range d {
		if f.Key == key {
			s, ok := f.Value.(string)
			return s, ok
		}
	}
	return "", false
}
