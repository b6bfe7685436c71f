package rollback

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// docRef names one document a divergent entry touched.
type docRef struct {
	db, coll string
	uuid     string // the entry's ui ("" if none)
	id       any
}

// indexRef names one index a divergent entry built.
type indexRef struct {
	uuid string // the collection's
	ns   string
	name string
}

// plan is what undoing the divergent entries takes, judged before any
// write (see the package invariants).
type plan struct {
	docs    []docRef
	seen    map[string]bool        // ns + keystring(_id) of docs
	created map[string]bson.Binary // collections the divergent entries created, by UUID
	order   []bson.Binary          // the same, in creation order
	indexes []indexRef             // indexes they built on older collections
}

// makePlan judges the divergent entries (oldest first).
func makePlan(entries []*oplog.Entry) (*plan, error) {
	p := &plan{seen: map[string]bool{}, created: map[string]bson.Binary{}}
	for _, e := range entries {
		if err := p.add(e); err != nil {
			return nil, fmt.Errorf("%w: %s %s at %v (term %d): %v", ErrUnrecoverable, e.Op, e.NS, e.TS, e.Term, err)
		}
	}
	return p, nil
}

// add records what undoing e takes.
func (p *plan) add(e *oplog.Entry) error {
	switch e.Op {
	case oplog.OpInsert, oplog.OpDelete:
		return p.addDoc(e, e.O)
	case oplog.OpUpdate:
		return p.addDoc(e, e.O2)
	case oplog.OpCommand:
		return p.addCommand(e)
	case oplog.OpNoop:
		return nil
	}
	return fmt.Errorf("unknown op %q", e.Op)
}

func uuidKey(ui *bson.Binary) string {
	if ui == nil {
		return ""
	}
	return string(ui.Data)
}

// addDoc records the document whose _id is in idDoc.
func (p *plan) addDoc(e *oplog.Entry, idDoc bson.D) error {
	id, ok := bsonx.Get(idDoc, "_id")
	if !ok {
		return fmt.Errorf("entry names no _id")
	}
	db, coll, ok := strings.Cut(e.NS, ".")
	if !ok {
		return fmt.Errorf("bad namespace")
	}
	key := e.NS + "\x00" + string(keystring.AppendValue(nil, id, false))
	if !p.seen[key] {
		p.seen[key] = true
		p.docs = append(p.docs, docRef{db: db, coll: coll, uuid: uuidKey(e.UI), id: id})
	}
	return nil
}

// addCommand judges a "c" entry: what the divergent history created is
// dropped; what it dropped or renamed cannot come back without the data.
// TODO(#4): refetch a dropped collection whole from the source (listIndexes
// + find) instead of failing, as MongoDB's refetch rollback did.
func (p *plan) addCommand(e *oplog.Entry) error {
	if len(e.O) == 0 {
		return fmt.Errorf("empty o")
	}
	name, _ := e.O[0].Value.(string)
	db, _, _ := strings.Cut(e.NS, ".")
	_, tailColl := p.created[uuidKey(e.UI)]
	switch e.O[0].Key {
	case "applyOps": // a transaction's commit (plan_txn.go)
		return p.addApplyOps(e)
	case "create":
		if e.UI == nil {
			return fmt.Errorf("create without a collection UUID")
		}
		p.created[uuidKey(e.UI)] = *e.UI
		p.order = append(p.order, *e.UI)
		return nil
	case "createIndexes":
		if !tailColl {
			idx, _ := bsonx.Get(e.O, "name")
			s, _ := idx.(string)
			p.indexes = append(p.indexes, indexRef{uuid: uuidKey(e.UI), ns: db + "." + name, name: s})
		}
		return nil
	case "dropIndexes", "deleteIndexes":
		return p.dropIndexes(e, tailColl)
	case "drop":
		return okIf(tailColl, "the dropped collection existed before the common point")
	case "renameCollection":
		_, dropTarget := bsonx.Get(e.O, "dropTarget")
		return okIf(tailColl && !dropTarget, "renames cannot be rolled back")
	case "collMod":
		// TODO(#14): restore the options the collection had at the common point.
		return okIf(tailColl, "collMod of a collection older than the common point cannot be rolled back")
	case "dropDatabase":
		// The primary logged a drop per collection before it.
		return nil
	}
	return fmt.Errorf("unsupported command %q", e.O[0].Key)
}

// dropIndexes accepts dropping indexes the divergent history built.
func (p *plan) dropIndexes(e *oplog.Entry, tailColl bool) error {
	if tailColl {
		return nil
	}
	v, _ := bsonx.Get(e.O, "index")
	name, _ := v.(string)
	for i, ix := range p.indexes {
		if ix.uuid == uuidKey(e.UI) && ix.name == name {
			p.indexes = append(p.indexes[:i], p.indexes[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("the dropped index %v existed before the common point", v)
}

func okIf(ok bool, why string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s", why)
}
