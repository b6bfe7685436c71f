package oplog

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Op types, as MongoDB writes them in the "op" field.
const (
	OpInsert  = "i"
	OpUpdate  = "u"
	OpDelete  = "d"
	OpCommand = "c"
	OpNoop    = "n"
)

// Entry is one oplog entry (a document of local.oplog.rs).
type Entry struct {
	TS   bson.Timestamp // ts
	Term int64          // t
	V    int            // v (2)
	Op   string         // op
	NS   string         // ns
	UI   *bson.Binary   // ui: collection UUID (subtype 4), absent for some "c"/"n"
	O    bson.D         // o
	// ORaw, when set, is O already encoded (an insert's document): Marshal
	// embeds it instead of encoding O again.
	ORaw bson.Raw
	O2   bson.D    // o2 (nil = absent)
	Wall time.Time // wall (bson.DateTime, millisecond precision)
	// Extra holds fields this type does not model (lsid, txnNumber, ...),
	// in order; they are written back after wall, so a secondary stores
	// what its sync source sent.
	Extra bson.D
	// Raw, when set, is the whole entry exactly as its sync source sent it
	// (the fetcher's stream keeps it): Append stores these bytes instead
	// of encoding the entry again. Whoever changes a field of an entry
	// that has Raw must clear it.
	Raw bson.Raw
}

// Marshal encodes e as BSON with MongoDB's field order:
// ts, t, v, op, ns, ui, o, o2, wall.
func (e *Entry) Marshal() ([]byte, error) {
	return bsonx.Encode(e.Doc())
}

// Doc returns e as a bson.D in MongoDB's field order.
func (e *Entry) Doc() bson.D {
	v := e.V
	if v == 0 {
		v = 2
	}
	d := bson.D{{Key: "ts", Value: e.TS}, {Key: "t", Value: e.Term},
		{Key: "v", Value: int64(v)}, {Key: "op", Value: e.Op}, {Key: "ns", Value: e.NS}}
	if e.UI != nil {
		d = append(d, bson.E{Key: "ui", Value: *e.UI})
	}
	var o any = e.O
	if e.ORaw != nil {
		o = e.ORaw
	} else if e.O == nil {
		o = bson.D{}
	}
	d = append(d, bson.E{Key: "o", Value: o})
	if e.O2 != nil {
		d = append(d, bson.E{Key: "o2", Value: e.O2})
	}
	d = append(d, bson.E{Key: "wall", Value: bson.NewDateTimeFromTime(e.Wall)})
	return append(d, e.Extra...)
}

// Unmarshal decodes a BSON oplog entry.
func Unmarshal(raw []byte) (*Entry, error) {
	d, err := bsonx.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("oplog: decode entry: %w", err)
	}
	return FromDoc(d)
}

// FromDoc converts a decoded oplog entry (a document of local.oplog.rs, as
// a find reply carries it). The entry keeps references into d.
func FromDoc(d bson.D) (*Entry, error) {
	e := &Entry{}
	for _, f := range d {
		if err := e.setField(f); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *Entry) setField(f bson.E) error {
	var ok bool
	switch f.Key {
	case "ts":
		e.TS, ok = f.Value.(bson.Timestamp)
	case "t":
		e.Term, ok = asInt64(f.Value)
	case "v":
		var v int64
		v, ok = asInt64(f.Value)
		e.V = int(v)
	case "op":
		e.Op, ok = f.Value.(string)
	case "ns":
		e.NS, ok = f.Value.(string)
	case "ui":
		var b bson.Binary
		b, ok = f.Value.(bson.Binary)
		e.UI = &b
	case "o":
		e.O, ok = f.Value.(bson.D)
	case "o2":
		e.O2, ok = f.Value.(bson.D)
	case "wall":
		var w bson.DateTime
		w, ok = f.Value.(bson.DateTime)
		e.Wall = w.Time()
	default:
		e.Extra, ok = append(e.Extra, f), true
	}
	if !ok {
		return fmt.Errorf("oplog: field %q has unexpected type %T", f.Key, f.Value)
	}
	return nil
}

func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}
