package changestream

import (
	"strings"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Scope is what a stream watches: one collection (DB and Coll), one
// database (Coll empty) or the whole cluster (Cluster).
type Scope struct {
	DB, Coll string
	Cluster  bool
}

// NewScope checks where a stream may be opened: coll is "" for
// {aggregate: 1}. As MongoDB: a cluster stream only on admin with no
// collection; no stream on admin otherwise, nor on local, config or a
// system collection.
func NewScope(db, coll string, allChanges bool) (Scope, error) {
	if allChanges {
		if db != "admin" || coll != "" {
			return Scope{}, mongoerr.New(mongoerr.InvalidNamespace,
				"A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name")
		}
		return Scope{Cluster: true}, nil
	}
	switch {
	case db == "admin" || db == "local" || db == "config":
		return Scope{}, mongoerr.New(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal %s database", db)
	case strings.HasPrefix(coll, "system."):
		return Scope{}, mongoerr.New(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal %s.%s collection", db, coll)
	}
	return Scope{DB: db, Coll: coll}, nil
}

// splitNS splits "db.coll" at the first dot.
func splitNS(ns string) (db, coll string) {
	if i := strings.IndexByte(ns, '.'); i >= 0 {
		return ns[:i], ns[i+1:]
	}
	return ns, ""
}

// watchesDB reports whether the scope sees events of database db.
func (s Scope) watchesDB(db string) bool {
	if s.Cluster {
		return db != "admin" && db != "local" && db != "config"
	}
	return db == s.DB
}

// watches reports whether the scope sees events on db.coll.
func (s Scope) watches(db, coll string) bool {
	if !s.watchesDB(db) || strings.HasPrefix(coll, "system.") {
		return false
	}
	return s.Coll == "" || s.Coll == coll
}
