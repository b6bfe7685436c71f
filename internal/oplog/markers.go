package oplog

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Truncate markers (MongoDB's oplog truncate markers): as entries become
// visible they are cut, in ts order, into ranges of about maxBytes/markersPerCap
// bytes. Truncation drops whole oldest ranges with one range deletion, so it
// never walks entries (nor the tombstones of earlier deletes).
//
// Invariants (under Log.mu):
//   - full ranges are in ts order, each ends at its last entry; cur holds
//     every visible entry after the last full range (its last is the newest
//     visible entry, zero when empty);
//   - the sums of bytes and counts over full and cur equal Log.mu.bytes and
//     Log.mu.count: the size and count of the entries from first to visible.

// markersPerCap is how many ranges a full oplog is cut into.
const markersPerCap = 100

// minMarkerBytes keeps ranges from becoming single tiny entries.
const minMarkerBytes = 1 << 10

// rangeMark is one range of consecutive entries: the ts of its newest
// entry, its bytes and its entry count.
type rangeMark struct {
	Last  bson.Timestamp `bson:"last"`
	Bytes int64          `bson:"bytes"`
	Count int64          `bson:"count"`
}

// markers are the oplog's ranges, oldest first.
type markers struct {
	full   []rangeMark
	cur    rangeMark
	target int64 // bytes at which cur becomes a full range
}

func markerTarget(maxBytes int64) int64 {
	return max(maxBytes/markersPerCap, minMarkerBytes)
}

// add accounts one entry (in ts order) and cuts a range when cur is full.
func (m *markers) add(ts bson.Timestamp, bytes int64) {
	m.cur.Last = ts
	m.cur.Bytes += bytes
	m.cur.Count++
	if m.cur.Bytes >= m.target {
		m.full = append(m.full, m.cur)
		m.cur = rangeMark{}
	}
}

// totals returns the bytes and count over every range.
func (m *markers) totals() (bytes, count int64) {
	for _, r := range m.full {
		bytes, count = bytes+r.Bytes, count+r.Count
	}
	return bytes + m.cur.Bytes, count + m.cur.Count
}

// keepThrough drops every full range that ends after ts and returns the
// ts of the newest kept range's last entry (zero if none is kept): the
// entries after it up to ts must be accounted again into cur by the caller.
func (m *markers) keepThrough(ts bson.Timestamp) bson.Timestamp {
	n := 0
	for n < len(m.full) && !m.full[n].Last.After(ts) {
		n++
	}
	m.full = m.full[:n]
	m.cur = rangeMark{}
	if n == 0 {
		return bson.Timestamp{}
	}
	return m.full[n-1].Last
}

// clone returns a deep copy (for a checkpoint taken outside the lock).
func (m *markers) clone() markers {
	c := *m
	c.full = append([]rangeMark(nil), m.full...)
	return c
}
