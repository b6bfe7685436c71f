package catalog

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// LocalDB is the database that is never replicated: writes to it (the
// replica-set config, the last vote, markers) write no oplog entry, as
// MongoDB's local database.
const LocalDB = "local"

// isLocalNS reports whether ns ("db.coll", "db.$cmd") is in the local
// database.
func isLocalNS(ns string) bool { return strings.HasPrefix(ns, LocalDB+".") }

// WriteNoop writes a no-op oplog entry {op:"n", ns:"", o:msg} in a batch
// of its own (a new primary's first entry of its term) and returns its
// result (TS, Seq).
func (c *Catalog) WriteNoop(msg bson.D) (WriteResult, error) {
	return c.Apply(func(w *Writer) error {
		return w.appendEntry(&oplog.Entry{Op: oplog.OpNoop, NS: "", O: msg})
	})
}

// EnsureLocalCollection returns local.name, creating it if absent. It is
// for replication state (local.system.replset, local.replset.*), whose
// system names users may not create.
func (c *Catalog) EnsureLocalCollection(name string) (*Collection, error) {
	if coll := c.Collection(LocalDB, name); coll != nil {
		return coll, nil
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if coll := c.Collection(LocalDB, name); coll != nil {
		return coll, nil
	}
	return c.createLocked(LocalDB, name, nil)
}
