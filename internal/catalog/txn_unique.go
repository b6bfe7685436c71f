package catalog

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// checkUnique refuses newDoc (_id keystring idKS) when one of coll's
// unique secondary indexes already holds one of its keys in the
// transaction's view: in a document the transaction wrote, or in the
// snapshot for a document it did not change. The same check runs again at
// Commit against the latest state (a concurrent commit may have taken the
// key since). It returns the keys newDoc holds in each unique index, for
// later checks.
func (t *Txn) checkUnique(coll *Collection, idKS []byte, newDoc bson.D) (map[uint32][][]byte, error) {
	var own map[uint32][][]byte
	for _, idx := range coll.Indexes() {
		if idx.IsID() || !idx.Unique {
			continue
		}
		keys, _, err := indexKeys(idx, newDoc)
		if err != nil {
			return nil, err
		}
		for _, key := range keys {
			if err := t.keyFree(coll, idx, key, idKS); err != nil {
				return nil, err
			}
		}
		if own == nil {
			own = map[uint32][][]byte{}
		}
		own[idx.ID] = keys
	}
	return own, nil
}

// keyFree checks that no other document holds key in idx in the view.
func (t *Txn) keyFree(coll *Collection, idx *Index, key, idKS []byte) error {
	self := string(storage.DocKey(coll.ID, idKS))
	for ks, d := range t.touched {
		if ks != self && d.coll.ID == coll.ID && containsKey(d.ukeys[idx.ID], key) {
			return t.dupKey(coll, idx, key)
		}
	}
	k, _ := entryKV(idx, key, idKS)
	owner, ok, err := t.base.s.GetBase(k)
	if err != nil || !ok || bytes.Equal(owner, idKS) {
		return err
	}
	if t.touched[string(storage.DocKey(coll.ID, owner))] != nil {
		return nil // the transaction changed that document: its keys are checked above
	}
	return t.dupKey(coll, idx, key)
}

func (t *Txn) dupKey(coll *Collection, idx *Index, key []byte) error {
	val, err := keyValueDoc(idx, key)
	if err != nil {
		return err
	}
	return newDupKey(coll, idx, val)
}
