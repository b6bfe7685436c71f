package changestream

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/update"
)

// crud builds an insert, update, replace or delete event.
func (b builder) crud(op *oplog.Entry, db, coll string, t Token) (Event, error) {
	ev := Event{Token: t}
	ns := bson.E{Key: "ns", Value: nsDoc(db, coll)}
	pre, hasPre := preImage(op)
	switch {
	case op.Op == oplog.OpInsert:
		ev.Doc = append(b.head(t, "insert", op.UI), bson.E{Key: "fullDocument", Value: op.O},
			ns, bson.E{Key: "documentKey", Value: insertKey(op)})
		return ev, nil
	case op.Op == oplog.OpDelete:
		ev.Doc = append(b.head(t, "delete", op.UI), ns, bson.E{Key: "documentKey", Value: op.O})
	case isReplacement(op.O):
		ev.Doc = append(b.head(t, "replace", op.UI), bson.E{Key: "fullDocument", Value: op.O},
			ns, bson.E{Key: "documentKey", Value: op.O2})
	default:
		ev.Doc = b.head(t, "update", op.UI)
		if err := b.postImage(&ev, op, db, coll, pre, hasPre); err != nil {
			return ev, err
		}
		ev.Doc = append(ev.Doc, ns, bson.E{Key: "documentKey", Value: op.O2},
			bson.E{Key: "updateDescription", Value: UpdateDescription(op.O, b.o.ShowExpandedEvents)})
	}
	return ev, b.preImage(&ev, pre, hasPre)
}

// postImage adds an update event's fullDocument: looked up later
// (updateLookup), or the pre-image with the update applied
// (whenAvailable, required).
func (b builder) postImage(ev *Event, op *oplog.Entry, db, coll string, pre bson.D, hasPre bool) error {
	switch b.o.FullDocument {
	case FullUpdateLookup:
		ev.Lookup, ev.LookupNS, ev.LookupField = true, [2]string{db, coll}, len(ev.Doc)
		ev.LookupID = idOf(op.O2)
		ev.Doc = append(ev.Doc, bson.E{Key: "fullDocument", Value: nil})
	case FullWhenAvailable, FullRequired:
		var post any
		if hasPre {
			d, err := update.ApplyOplog(pre, op.O)
			if err != nil {
				return fmt.Errorf("changestream: post-image at %v: %w", b.e.TS, err)
			}
			post = d
		} else if b.o.FullDocument == FullRequired {
			return missingImage("post-image", ev.Token)
		}
		ev.Doc = append(ev.Doc, bson.E{Key: "fullDocument", Value: post})
	}
	return nil
}

// preImage adds fullDocumentBeforeChange to an update, replace or delete
// event when the stream asks for it.
func (b builder) preImage(ev *Event, pre bson.D, hasPre bool) error {
	switch b.o.FullDocumentBeforeChange {
	case FullWhenAvailable, FullRequired:
		if !hasPre && b.o.FullDocumentBeforeChange == FullRequired {
			return missingImage("pre-image", ev.Token)
		}
		var v any
		if hasPre {
			v = pre
		}
		ev.Doc = append(ev.Doc, bson.E{Key: "fullDocumentBeforeChange", Value: v})
	}
	return nil
}

// preImage is the pre-image an update or delete entry keeps
// (catalog.PreImageField) on a collection with changeStreamPreAndPostImages.
func preImage(op *oplog.Entry) (bson.D, bool) {
	d, ok := lookupField(op.Extra, catalog.PreImageField).(bson.D)
	return d, ok
}

func missingImage(what string, t Token) error {
	return mongoerr.New(mongoerr.NoMatchingDocument,
		"Change stream was configured to require a %s for all update, delete and replace events, but the %s was not found for event: %s "+
			"(the collection needs changeStreamPreAndPostImages: {enabled: true})", what, what, t.hex())
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
