package storage

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// parseEntries returns the CRUD operations an oplog entry names: its own
// (an i/u/d entry), or those of a transaction's applyOps entry
// ({op:"c", o:{applyOps:[{op, ns, ui, o, o2}, ...]}}), which names every
// document the transaction's commit batch writes (rule 1).
func parseEntries(k, v []byte) []crudEntry {
	if e, ok := parseCRUD(k, v); ok {
		return []crudEntry{e}
	}
	raw := bson.Raw(v)
	if raw.Validate() != nil {
		return nil
	}
	if op, _ := raw.Lookup("op").StringValueOK(); op != "c" {
		return nil
	}
	ops, ok := raw.Lookup("o", "applyOps").ArrayOK()
	if !ok {
		return nil
	}
	vals, err := ops.Values()
	if err != nil {
		return nil
	}
	ts, _ := OplogTS(k)
	var out []crudEntry
	for _, val := range vals {
		d, ok := val.DocumentOK()
		if !ok {
			continue
		}
		if e, ok := parseOp(d); ok {
			e.ts = ts
			out = append(out, e)
		}
	}
	return out
}

// parseOp reads one applyOps operation's collection and _id.
func parseOp(raw bson.Raw) (crudEntry, bool) {
	op, _ := raw.Lookup("op").StringValueOK()
	idPath := []string{"o", "_id"}
	switch op {
	case "i", "d":
	case "u":
		idPath = []string{"o2", "_id"}
	default:
		return crudEntry{}, false
	}
	e := crudEntry{op: op}
	e.ns, _ = raw.Lookup("ns").StringValueOK()
	if _, data, ok := raw.Lookup("ui").BinaryOK(); ok {
		e.ui = append([]byte(nil), data...)
	}
	var id any
	idv, err := raw.LookupErr(idPath...)
	if err == nil {
		err = idv.Unmarshal(&id)
	}
	if err != nil {
		return crudEntry{}, false
	}
	e.id = string(keystring.AppendValue(nil, id, false))
	return e, true
}
