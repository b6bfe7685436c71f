package oplog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// OpTime names one oplog entry: its timestamp and the term of the primary
// that wrote it. OpTimes order by term first, then timestamp, as MongoDB's
// protocol version 1 does: an entry of a later term is newer even when a
// deposed primary's clock ran ahead.
type OpTime struct {
	TS   bson.Timestamp
	Term int64
}

// OpTime returns the entry's OpTime.
func (e *Entry) OpTime() OpTime { return OpTime{TS: e.TS, Term: e.Term} }

// Compare returns -1, 0 or +1 as o is older than, equal to or newer than p.
func (o OpTime) Compare(p OpTime) int {
	switch {
	case o.Term < p.Term:
		return -1
	case o.Term > p.Term:
		return 1
	case o.TS.T != p.TS.T:
		return cmpU32(o.TS.T, p.TS.T)
	default:
		return cmpU32(o.TS.I, p.TS.I)
	}
}

func cmpU32(a, b uint32) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// Less reports whether o is older than p.
func (o OpTime) Less(p OpTime) bool { return o.Compare(p) < 0 }

// IsZero reports whether o is the null OpTime (nothing written yet).
func (o OpTime) IsZero() bool { return o == OpTime{} }

// String prints o as seconds:increment@term.
func (o OpTime) String() string { return fmt.Sprintf("%d:%d@%d", o.TS.T, o.TS.I, o.Term) }
