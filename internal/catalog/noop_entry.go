package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// WriteNoopFor writes a no-op oplog entry about namespace ns ({op: "n",
// ns, ui, o: msg, o2: detail}) in a batch of its own, as mongod notes a
// sharding event for change streams (shardCollection); ui may be nil.
// It changes no data: secondaries apply it as any no-op.
func (c *Catalog) WriteNoopFor(ns string, ui *bson.Binary, msg, detail bson.D) (WriteResult, error) {
	return c.Apply(func(w *Writer) error {
		return w.appendEntry(&oplog.Entry{Op: oplog.OpNoop, NS: ns, UI: ui, O: msg, O2: detail})
	})
}
