package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// RenameCollection renames fromDB.from to toDB.to. Data is keyed by the
// collection id, so a rename (even across databases) only rewrites the
// catalog entry; a target (dropTarget) is dropped in the same batch.
// Errors: NamespaceNotFound (26) for a missing source,
// NamespaceExists (48) for an existing target without dropTarget,
// IllegalOperation (20) when source and target are the same.
func (c *Catalog) RenameCollection(fromDB, from, toDB, to string, dropTarget bool) error {
	if err := ValidateCollName(toDB, to); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	src := c.Collection(fromDB, from)
	if src == nil {
		return mongoerr.New(mongoerr.NamespaceNotFound, "Source collection %s.%s does not exist", fromDB, from)
	}
	if fromDB == toDB && from == to {
		return mongoerr.New(mongoerr.IllegalOperation, "Can't rename a collection to itself")
	}
	target := c.Collection(toDB, to)
	if target != nil && !dropTarget {
		return mongoerr.New(mongoerr.NamespaceExists, "target namespace exists")
	}
	o := bson.D{{Key: "renameCollection", Value: src.NS()}, {Key: "to", Value: toDB + "." + to},
		{Key: "stayTemp", Value: false}}
	if target != nil {
		o = append(o, bson.E{Key: "dropTarget", Value: target.UUID})
	}
	// TODO(#2): MongoDB gives a cross-database rename a new UUID.
	_, err := c.apply(func(w *Writer) error {
		if err := w.RenameCollection(src, toDB, to); err != nil {
			return err
		}
		return w.appendEntry(cmdEntry(fromDB, &src.UUID, o))
	})
	return err
}
