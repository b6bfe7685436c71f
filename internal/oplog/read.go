package oplog

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// ReadRaw returns up to limit (0 = no limit) raw entries with ts > after
// (>= after when inclusive), oldest first, up to the visibility point.
func (l *Log) ReadRaw(after bson.Timestamp, inclusive bool, limit int) ([][]byte, error) {
	return l.ReadRawBytes(after, inclusive, limit, math.MaxInt)
}

// Read is ReadRaw with decoded entries.
func (l *Log) Read(after bson.Timestamp, inclusive bool, limit int) ([]*Entry, error) {
	raws, err := l.ReadRaw(after, inclusive, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*Entry, 0, len(raws))
	for _, raw := range raws {
		e, err := Unmarshal(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadReverse returns up to limit raw entries, newest visible first, with
// ts < before (zero before = from the visibility point down); for
// find({}).sort({$natural: -1}) on local.oplog.rs.
func (l *Log) ReadReverse(before bson.Timestamp, limit int) ([][]byte, error) {
	lo, _ := storage.OplogBounds()
	hi := append(storage.OplogKey(l.Visible()), 0)
	if !before.IsZero() {
		hi = storage.OplogKey(before)
	}
	it, err := l.eng.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out [][]byte
	for ok := it.Last(); ok && (limit <= 0 || len(out) < limit); ok = it.Prev() {
		out = append(out, append([]byte(nil), it.Value()...))
	}
	return out, it.Error()
}
