package changestream

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// command builds the events of a DDL entry ({op: "c"}): drop, rename and
// dropDatabase (with the invalidate they cause), and with
// showExpandedEvents create, createIndexes, dropIndexes and modify.
func (b builder) command(op *oplog.Entry, t Token) []Event {
	if len(op.O) == 0 {
		return nil
	}
	db, _ := splitNS(op.NS)
	name, _ := op.O[0].Value.(string)
	switch op.O[0].Key {
	case "drop":
		return b.withInvalidate(b.simple(op, t, "drop", db, name), db, name)
	case "renameCollection":
		return b.rename(op, t)
	case "dropDatabase":
		if b.s.Cluster || (b.s.DB == db && b.s.Coll == "") {
			ev := Event{Token: t, Doc: append(b.head(t, "dropDatabase", nil), bson.E{Key: "ns", Value: nsDoc(db, "")})}
			if b.s.Cluster {
				return []Event{ev}
			}
			return []Event{ev, b.invalidate(t)}
		}
	case "create", "createIndexes", "dropIndexes", "collMod":
		if b.o.ShowExpandedEvents {
			return b.expanded(op, t, db, name)
		}
	}
	return nil
}

// simple is an event with just the head and ns, if the scope watches it.
func (b builder) simple(op *oplog.Entry, t Token, opType, db, coll string) []Event {
	if !b.s.watches(db, coll) {
		return nil
	}
	return []Event{{Token: t, Doc: append(b.head(t, opType, op.UI), bson.E{Key: "ns", Value: nsDoc(db, coll)})}}
}

// withInvalidate adds the invalidate a collection stream gets after an
// event that removed its collection.
func (b builder) withInvalidate(evs []Event, db, coll string) []Event {
	if len(evs) == 0 || b.s.Cluster || b.s.Coll == "" || b.s.DB != db || b.s.Coll != coll {
		return evs
	}
	return append(evs, b.invalidate(evs[len(evs)-1].Token))
}

// invalidate follows the event with token t.
func (b builder) invalidate(t Token) Event {
	t.Invalidate = true
	return Event{Token: t, Invalidate: true, Doc: bson.D{{Key: "_id", Value: t.Doc()},
		{Key: "operationType", Value: "invalidate"}, {Key: "clusterTime", Value: b.e.TS},
		{Key: "wallTime", Value: bson.NewDateTimeFromTime(b.e.Wall)}}}
}

// rename is the rename event of the source collection's streams.
func (b builder) rename(op *oplog.Entry, t Token) []Event {
	from, _ := op.O[0].Value.(string)
	to, _ := lookupField(op.O, "to").(string)
	fromDB, fromColl := splitNS(from)
	toDB, toColl := splitNS(to)
	if !b.s.watches(fromDB, fromColl) {
		return nil
	}
	doc := append(b.head(t, "rename", op.UI), bson.E{Key: "ns", Value: nsDoc(fromDB, fromColl)},
		bson.E{Key: "to", Value: nsDoc(toDB, toColl)})
	if b.o.ShowExpandedEvents {
		desc := bson.D{{Key: "to", Value: nsDoc(toDB, toColl)}}
		if dt := lookupField(op.O, "dropTarget"); dt != nil {
			desc = append(desc, bson.E{Key: "dropTarget", Value: dt})
		}
		doc = append(doc, bson.E{Key: "operationDescription", Value: desc})
	}
	return b.withInvalidate([]Event{{Token: t, Doc: doc}}, fromDB, fromColl)
}

// expanded builds the showExpandedEvents DDL events.
func (b builder) expanded(op *oplog.Entry, t Token, db, coll string) []Event {
	evs := b.simple(op, t, expandedType[op.O[0].Key], db, coll)
	if len(evs) == 0 {
		return nil
	}
	rest := op.O[1:]
	var desc bson.D
	switch op.O[0].Key {
	case "create":
		desc = rest
	case "createIndexes":
		desc = bson.D{{Key: "indexes", Value: bson.A{rest}}}
	case "dropIndexes":
		desc = bson.D{{Key: "indexes", Value: bson.A{bson.D{{Key: "name", Value: lookupField(rest, "index")}}}}}
	case "collMod":
		desc = rest
	}
	evs[0].Doc = append(evs[0].Doc, bson.E{Key: "operationDescription", Value: desc})
	return evs
}

var expandedType = map[string]string{"create": "create", "createIndexes": "createIndexes",
	"dropIndexes": "dropIndexes", "collMod": "modify"}

func lookupField(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}
