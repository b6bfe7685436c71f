package changestream

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// crud builds an insert, update, replace or delete event.
func (b builder) crud(op *oplog.Entry, db, coll string, t Token) Event {
	ev := Event{Token: t}
	switch {
	case op.Op == oplog.OpInsert:
		ev.Doc = append(b.head(t, "insert", op.UI), bson.E{Key: "fullDocument", Value: op.O},
			bson.E{Key: "ns", Value: nsDoc(db, coll)}, bson.E{Key: "documentKey", Value: insertKey(op)})
	case op.Op == oplog.OpDelete:
		ev.Doc = append(b.head(t, "delete", op.UI), bson.E{Key: "ns", Value: nsDoc(db, coll)},
			bson.E{Key: "documentKey", Value: op.O})
	case isReplacement(op.O):
		ev.Doc = append(b.head(t, "replace", op.UI), bson.E{Key: "fullDocument", Value: op.O},
			bson.E{Key: "ns", Value: nsDoc(db, coll)}, bson.E{Key: "documentKey", Value: op.O2})
	default:
		ev.Doc = b.head(t, "update", op.UI)
		if b.o.FullDocument == FullUpdateLookup {
			ev.Lookup, ev.LookupNS, ev.LookupField = true, [2]string{db, coll}, len(ev.Doc)
			ev.LookupID = idOf(op.O2)
			ev.Doc = append(ev.Doc, bson.E{Key: "fullDocument", Value: nil})
		}
		ev.Doc = append(ev.Doc, bson.E{Key: "ns", Value: nsDoc(db, coll)}, bson.E{Key: "documentKey", Value: op.O2},
			bson.E{Key: "updateDescription", Value: UpdateDescription(op.O, b.o.ShowExpandedEvents)})
	}
	return ev
}

// insertKey is an insert's documentKey: o2 when the entry has it (the
// _id, and the shard key on a sharded collection), else the _id of o.
func insertKey(op *oplog.Entry) bson.D {
	if len(op.O2) > 0 {
		return op.O2
	}
	return bson.D{{Key: "_id", Value: idOf(op.O)}}
}

func idOf(d bson.D) any {
	for _, e := range d {
		if e.Key == "_id" {
			return e.Value
		}
	}
	return nil
}

// isReplacement reports whether an update's o is a whole document rather
// than the {$set, $unset} form.
func isReplacement(o bson.D) bool {
	return len(o) == 0 || len(o[0].Key) == 0 || o[0].Key[0] != '$'
}

// UpdateDescription turns the update oplog form {$set: {path: v},
// $unset: {path: true}} into updateDescription. relaydb's oplog form sets
// whole arrays it shortened, so truncatedArrays is always empty.
// TODO(#14): disambiguatedPaths for numeric field names (needs the
// post-image to tell an array index from a field name).
func UpdateDescription(o bson.D, expanded bool) bson.D {
	updated, removed := bson.D{}, bson.A{}
	for _, e := range o {
		fields, _ := e.Value.(bson.D)
		switch e.Key {
		case "$set":
			updated = append(updated, fields...)
		case "$unset":
			for _, f := range fields {
				removed = append(removed, f.Key)
			}
		}
	}
	d := bson.D{{Key: "updatedFields", Value: updated}, {Key: "removedFields", Value: removed},
		{Key: "truncatedArrays", Value: bson.A{}}}
	if expanded {
		d = append(d, bson.E{Key: "disambiguatedPaths", Value: bson.D{}})
	}
	return d
}
