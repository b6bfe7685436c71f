package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// Snapshot reads outside transactions: readConcern {level: "snapshot"}
// on find, aggregate and distinct (checkSnapshotReadConcern refuses the
// rest). Without atClusterTime the read takes the majority snapshot and
// answers its time as atClusterTime (in the cursor, or at the top of a
// distinct's reply); a snapshot session sends it back as atClusterTime
// on its next reads, which read that same point in time
// (catalog.SnapshotAt) while the catalog still keeps it
// (SnapshotUnavailable after).

// waitSnapshotRead returns the snapshot a snapshot-level read reads.
func (c *Ctx) waitSnapshotRead(ctx context.Context, rc readConcern) (*catalog.Snapshot, error) {
	cat := c.D.eng.Catalog()
	cat.KeepSnapshotHistory()
	if !rc.atCluster {
		s, err := cat.WaitMajoritySnapshot(ctx, rc.after)
		return s, readWaitErr(err)
	}
	c.noopIfAhead(rc.at)
	s, err := cat.WaitMajoritySnapshot(ctx, rc.at)
	if err != nil {
		return nil, readWaitErr(err)
	}
	s.Release()
	return cat.SnapshotAt(rc.at)
}

// withAtClusterTime adds the read's point in time to its reply: inside
// the cursor document for find and aggregate, at the top for distinct.
func withAtClusterTime(reply bson.D, v *readView) bson.D {
	at := v.snap.TS()
	if v.rc.atCluster {
		at = v.rc.at
	}
	for i, e := range reply {
		if e.Key == "cursor" {
			if cur, ok := e.Value.(bson.D); ok {
				reply[i].Value = append(cur, bson.E{Key: "atClusterTime", Value: at})
				return reply
			}
		}
	}
	return append(reply, bson.E{Key: "atClusterTime", Value: at})
}
