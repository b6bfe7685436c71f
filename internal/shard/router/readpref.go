package router

import (
	"context"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// Read preference, as mongos applies it: the client's $readPreference is
// parsed and checked as mongos's ReadPreferenceSetting::fromInnerBSON
// does (an invalid one fails the command before anything is sent), and a
// read outside a transaction whose mode is not primary goes to the member
// of each targeted shard that netclient's server selection picks: mode,
// tag sets, maxStalenessSeconds, then the 15 ms latency window, at random
// within it. The raw fast path (rawrequest.go) parses the same field the
// same way. A cursor stays on the member that opened it (cursors.go).
//
// hedge is accepted and ignored (MongoDB 8 removed hedged reads).
//
// TODO(#14): a read routed by selection goes to an unsharded collection
// without databaseVersion (as secondary reads always did), even when the
// member picked is the primary (primaryPreferred, nearest): send it then.
// mongos also waits up to 15 s for a matching member where Select fails at
// once when every member answered its last check.

// minMaxStaleness is the least maxStalenessSeconds mongos accepts.
const minMaxStaleness = 90

// readPrefModes are the modes mongos parses, in the order its error names them.
var readPrefModes = []string{netclient.ModePrimary, netclient.ModePrimaryPreferred,
	netclient.ModeSecondary, netclient.ModeSecondaryPreferred, netclient.ModeNearest}

// readPref parses cmd's $readPreference (mode primary when absent).
func readPref(cmd bson.D) (netclient.ReadPref, error) {
	v, found := bsonx.Get(cmd, "$readPreference")
	if !found {
		return netclient.ReadPref{Mode: netclient.ModePrimary}, nil
	}
	d, ok := v.(bson.D)
	if !ok {
		return netclient.ReadPref{}, mongoerr.New(mongoerr.TypeMismatch,
			"$readPreference has incorrect type: expected object but got %s", bsonx.TypeAlias(v))
	}
	return parseReadPref(d)
}

// parseReadPref reads a $readPreference document: mode, tags,
// maxStalenessSeconds (hedge is ignored).
func parseReadPref(d bson.D) (netclient.ReadPref, error) {
	var p netclient.ReadPref
	mode, err := readPrefMode(d)
	if err != nil {
		return p, err
	}
	p.Mode = mode
	if p.TagSets, err = readPrefTags(d, mode); err != nil {
		return p, err
	}
	secs, err := readPrefStaleness(d, mode)
	p.MaxStaleness = time.Duration(secs) * time.Second
	return p, err
}

func readPrefMode(d bson.D) (string, error) {
	v, found := bsonx.Get(d, "mode")
	if !found {
		return "", mongoerr.New(mongoerr.NoSuchKey, "Missing expected field \"mode\"")
	}
	s, ok := v.(string)
	if !ok {
		return "", mongoerr.New(mongoerr.TypeMismatch, "\"mode\" had the wrong type. Expected string, found %s", bsonx.TypeAlias(v))
	}
	for _, m := range readPrefModes {
		if s == m {
			return s, nil
		}
	}
	return "", mongoerr.New(mongoerr.BadValue,
		"Could not parse $readPreference mode '%s'. Only the modes 'primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', and 'nearest' are supported. :: caused by :: Enumeration value '%s' for field 'mode' is not a valid value.", s, s)
}

// readPrefTags reads tags: an array of documents; [] and [{}] are the
// default (every member), and only they are allowed with mode primary.
func readPrefTags(d bson.D, mode string) ([]bson.D, error) {
	v, found := bsonx.Get(d, "tags")
	if !found {
		return nil, nil
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "\"tags\" had the wrong type. Expected array, found %s", bsonx.TypeAlias(v))
	}
	sets := make([]bson.D, 0, len(arr))
	for _, e := range arr {
		set, ok := e.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "$readPreference tags must be objects, found %s", bsonx.TypeAlias(e))
		}
		sets = append(sets, set)
	}
	if len(sets) == 0 || (len(sets) == 1 && len(sets[0]) == 0) {
		return nil, nil
	}
	if mode == netclient.ModePrimary {
		return nil, mongoerr.New(mongoerr.BadValue, "Only empty tags are allowed with primary read preference")
	}
	return sets, nil
}

// readPrefStaleness reads maxStalenessSeconds (0 when absent) and checks
// it in mongos's order: an integer, not negative, at least 90, not with
// mode primary.
func readPrefStaleness(d bson.D, mode string) (int64, error) {
	v, found := bsonx.Get(d, "maxStalenessSeconds")
	if !found {
		return 0, nil
	}
	n, ok := bsonx.AsInt64(v)
	switch {
	case !ok && !isNumber(v):
		return 0, mongoerr.New(mongoerr.TypeMismatch, "\"maxStalenessSeconds\" had the wrong type. Expected number, found %s", bsonx.TypeAlias(v))
	case !ok:
		return 0, mongoerr.New(mongoerr.BadValue, "Expected field \"maxStalenessSeconds\" to have a value exactly representable as a 64-bit integer, but found %v", v)
	case n < 0:
		return 0, mongoerr.New(mongoerr.BadValue, "maxStalenessSeconds must be a non-negative integer")
	case n >= math.MaxInt64/int64(1e9):
		return 0, mongoerr.New(mongoerr.BadValue, "maxStalenessSeconds value can not exceed %d", math.MaxInt64/int64(1e9))
	case n > 0 && n < minMaxStaleness:
		return 0, mongoerr.New(mongoerr.MaxStalenessOutOfRange, "maxStalenessSeconds value can not be less than %d", minMaxStaleness)
	case n > 0 && mode == netclient.ModePrimary:
		return 0, mongoerr.New(mongoerr.BadValue, "maxStalenessSeconds can not be set for the primary mode")
	}
	return n, nil
}

func isNumber(v any) bool {
	switch v.(type) {
	case int32, int64, float64, bson.Decimal128:
		return true
	}
	return false
}

// checkReadPref fails a command whose $readPreference mongos would refuse.
func checkReadPref(cmd bson.D) error {
	_, err := readPref(cmd)
	return err
}

// selectsMember returns the read preference of a read the router sends
// to the member server selection picks: a read outside a transaction
// whose mode is not primary. ok is false for anything else (the primary
// serves it).
func selectsMember(c *call) (p netclient.ReadPref, ok bool) {
	if txnKey(c.cmd) != "" || !isRead(c) {
		return p, false
	}
	p, err := readPref(c.cmd)
	return p, err == nil && p.Mode != netclient.ModePrimary
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

// RunSelected sends a read to the member p selects, selecting again
// (at most maxAttempts tries) after a network failure or a "not primary
// or secondary" reply (nothing was done). No member suits p:
// FailedToSatisfyReadPreference, as mongos answers. host is where it ran.
func (s *replSet) RunSelected(ctx context.Context, db string, cmd bson.D, p netclient.ReadPref) (reply bson.D, host string, err error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if host, err = s.rs.Select(ctx, p); err != nil {
			return nil, "", err
		}
		reply, err = s.pool.Run(ctx, host, db, cmd)
		if err == nil || (!netclient.IsNetworkError(err) && !netclient.NotPrimary(err)) {
			return reply, host, err
		}
		s.rs.MarkFailed(host, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, "", mongoerr.New(mongoerr.HostUnreachable, "no member of %s matching %s answered: %v", s.name, p, err)
}

// selectHost is the member a fast-path request goes to: the primary for
// mode primary, else the one p selects.
func (s *replSet) selectHost(ctx context.Context, p netclient.ReadPref) (string, error) {
	if p.Mode == "" || p.Mode == netclient.ModePrimary {
		return s.primary(ctx)
	}
	return s.rs.Select(ctx, p)
}
