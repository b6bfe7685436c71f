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
	vis := l.Visible()
	if vis.Compare(after) < 0 || (!inclusive && vis == after) {
		return nil, nil
	}
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
