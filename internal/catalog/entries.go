package catalog

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// entryKV returns the storage key and value of one index entry.
func entryKV(idx *Index, key, idKS []byte) (k, v []byte) {
	k = append(storage.IndexPrefix(idx.ID), key...)
	if idx.Unique {
		return k, idKS
	}
	return append(k, idKS...), nil
}

// addEntries writes doc's secondary index entries. With oldDoc (update), it
// first deletes oldDoc's entries that doc no longer has and only adds keys
// that are new, so unchanged keys are not rewritten.
func (w *write) addEntries(doc bson.D, idKS []byte, oldDoc bson.D) error {
	for _, idx := range w.coll.Indexes() {
		if idx.IsID() {
			continue
		}
		keys, multi, err := indexKeys(idx, doc)
		if err != nil {
			return err
		}
		if oldDoc != nil {
			if keys, err = w.diffOld(idx, oldDoc, keys, idKS); err != nil {
				return err
			}
		}
		if multi && !idx.Multikey {
			if w.multikey == nil {
				w.multikey = map[uint32]bool{}
			}
			w.multikey[idx.ID] = true
		}
		if err := w.putKeys(idx, keys, idKS); err != nil {
			return err
		}
	}
	return nil
}

// diffOld deletes oldDoc's keys not in keys and returns the keys to add.
func (w *write) diffOld(idx *Index, oldDoc bson.D, keys [][]byte, idKS []byte) ([][]byte, error) {
	oldKeys, _, err := indexKeys(idx, oldDoc)
	if err != nil {
		return nil, err
	}
	var add [][]byte
	for _, k := range keys {
		if !containsKey(oldKeys, k) {
			add = append(add, k)
		}
	}
	for _, k := range oldKeys {
		if !containsKey(keys, k) {
			ek, _ := entryKV(idx, k, idKS)
			if err := w.b.Delete(ek); err != nil {
				return nil, err
			}
		}
	}
	return add, nil
}

func containsKey(keys [][]byte, k []byte) bool {
	for _, o := range keys {
		if bytes.Equal(o, k) {
			return true
		}
	}
	return false
}

// putKeys writes entries, checking uniqueness through the batch.
func (w *write) putKeys(idx *Index, keys [][]byte, idKS []byte) error {
	for _, key := range keys {
		k, v := entryKV(idx, key, idKS)
		if idx.Unique {
			if other, exists, err := w.b.Get(k); err != nil {
				return err
			} else if exists && !bytes.Equal(other, idKS) {
				if w.relaxedConflict(idx) { // initial sync: a later entry resolves it
					continue
				}
				val, err := keyValueDoc(idx, key)
				if err != nil {
					return err
				}
				return newDupKey(w.coll, idx, val)
			}
		} else if idx.PrepareUnique() {
			if err := w.checkPrepared(idx, key, idKS); err != nil { // collmod_unique.go
				return err
			}
		}
		if err := w.b.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}

// removeEntries deletes doc's secondary index entries.
func (w *write) removeEntries(doc bson.D, idKS []byte) error {
	for _, idx := range w.coll.Indexes() {
		if idx.IsID() {
			continue
		}
		keys, _, err := indexKeys(idx, doc)
		if err != nil {
			return err
		}
		for _, key := range keys {
			k, _ := entryKV(idx, key, idKS)
			if err := w.b.Delete(k); err != nil {
				return err
			}
		}
	}
	return nil
}
