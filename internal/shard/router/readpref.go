package router

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// readMode is the $readPreference mode of cmd ("primary" when absent).
func readMode(cmd bson.D) string {
	rp, _ := bsonx.Get(cmd, "$readPreference")
	d, _ := rp.(bson.D)
	mode, _ := bsonx.Get(d, "mode")
	if s, _ := mode.(string); s != "" {
		return s
	}
	return "primary"
}

// wantsSecondary reports a read the router may send to a secondary:
// mode secondary or secondaryPreferred, outside a transaction. The other
// modes (primaryPreferred, nearest) are served by the primary for now.
//
// TODO(#11): primaryPreferred through netclient.ReplicaSet.RunRead (a
// secondary while there is no primary; the raw fast path in
// rawrequest.go sends it to the primary first), nearest by the monitor's
// round-trip times, tags and maxStalenessSeconds.
func wantsSecondary(c *call) bool {
	if txnKey(c.cmd) != "" || !isRead(c) {
		return false
	}
	m := readMode(c.cmd)
	return m == "secondary" || m == "secondaryPreferred"
}

// isRead: commands that only read (a $readPreference applies to them).
func isRead(c *call) bool {
	switch c.name {
	case "find", "count", "distinct", "listCollections", "listIndexes", "dbStats", "collStats":
		return true
	case "aggregate":
		return !writesOut(c.cmd)
	}
	return false
}

// RunSecondary sends a read to a secondary (round robin), retrying on
// another member after a network failure. With mode secondaryPreferred and
// no secondary it goes to the primary; with mode secondary it fails with
// FailedToSatisfyReadPreference, as mongos does. host is where it ran.
func (s *replSet) RunSecondary(ctx context.Context, db string, cmd bson.D, mode string) (reply bson.D, host string, err error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		host = s.secondary(ctx)
		if host == "" {
			if mode == "secondaryPreferred" {
				return s.RunOnPrimary(ctx, db, cmd, true)
			}
			return nil, "", mongoerr.New(mongoerr.FailedToSatisfyReadPreference,
				"Could not find host matching read preference { mode: \"secondary\" } for set %s", s.name)
		}
		reply, err = s.pool.Run(ctx, host, db, cmd)
		if err == nil || (!netclient.IsNetworkError(err) && !mongoerr.Is(err, mongoerr.NotPrimaryOrSecondary)) {
			return reply, host, err
		}
		s.dropSecondary(host, err)
	}
	return nil, "", mongoerr.New(mongoerr.HostUnreachable, "no secondary of %s answered: %v", s.name, err)
}

// secondary returns a secondary's host (round robin over the members
// the set's monitor sees in state SECONDARY); "" when the set has none.
func (s *replSet) secondary(ctx context.Context) string {
	list := s.rs.Secondaries(ctx)
	if len(list) == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.next++
	return list[s.mu.next%len(list)]
}

// dropSecondary is told that host failed a read: the monitor checks the
// set again.
func (s *replSet) dropSecondary(host string, err error) {
	s.rs.MarkFailed(host, err)
}
