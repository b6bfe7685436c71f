package topology

import "github.com/relaydb/relaydb/internal/oplog"

// OpTime is the oplog's OpTime (term, then timestamp); the topology
// compares members' positions with it.
type OpTime = oplog.OpTime

// maxOpTime returns the newer of a and b.
func maxOpTime(a, b OpTime) OpTime {
	if a.Less(b) {
		return b
	}
	return a
}

// minOpTime returns the older of a and b.
func minOpTime(a, b OpTime) OpTime {
	if b.Less(a) {
		return b
	}
	return a
}
