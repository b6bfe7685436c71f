package oplog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// ReadRawBytes is ReadRaw bounded by size as well: it stops once the
// entries read take maxBytes or more (always returning at least one
// entry when one is visible), so a reader of large entries holds a
// bounded amount of memory (a change stream's scan).
func (l *Log) ReadRawBytes(after bson.Timestamp, inclusive bool, limit, maxBytes int) ([][]byte, error) {
	vis, cached, hit := l.readTail(after, inclusive, limit, maxBytes)
	if vis.Compare(after) < 0 || (!inclusive && vis == after) {
		return nil, nil // nothing newer is visible: no iterator, no seek
	}
	if hit {
		return cached, nil // tail.go
	}
	return l.readStore(after, inclusive, limit, maxBytes, vis)
}

// readStore is ReadRawBytes from storage, up to vis.
func (l *Log) readStore(after bson.Timestamp, inclusive bool, limit, maxBytes int, vis bson.Timestamp) ([][]byte, error) {
	hi := append(storage.OplogKey(vis), 0) // inclusive of vis
	it, err := l.eng.NewIter(storage.OplogKey(after), hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out [][]byte
	size := 0
	for ok := it.First(); ok && (limit <= 0 || len(out) < limit) && size < maxBytes; ok = it.Next() {
		if ts, _ := storage.OplogTS(it.Key()); !inclusive && ts == after {
			continue
		}
		out = append(out, append([]byte(nil), it.Value()...))
		size += len(it.Value())
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("oplog: read: %w", err)
	}
	return out, nil
}
