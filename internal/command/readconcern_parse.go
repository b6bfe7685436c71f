package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Read concern levels (MongoDB's names).
const (
	levelLocal        = "local"
	levelAvailable    = "available"
	levelMajority     = "majority"
	levelLinearizable = "linearizable"
	levelSnapshot     = "snapshot"
)

// readConcern is a parsed readConcern document.
type readConcern struct {
	level     string         // levelLocal when absent
	after     bson.Timestamp // afterClusterTime, or afterOpTime's ts
	hasAfter  bool           // afterClusterTime or afterOpTime given
	hasOpTime bool           // afterOpTime (internal; {ts, t})
	atCluster bool           // atClusterTime given (snapshot level only)
	at        bson.Timestamp // atClusterTime
}

// parseReadConcern validates v as MongoDB's ReadConcernArgs::parse does.
func parseReadConcern(v any) (readConcern, error) {
	rc := readConcern{level: levelLocal}
	doc, ok := v.(bson.D)
	if !ok {
		return rc, mongoerr.New(mongoerr.FailedToParse, "readConcern field should be an object")
	}
	hasCluster := false
	for _, f := range doc {
		var err error
		switch f.Key {
		case "level":
			rc.level, err = parseLevel(f.Value)
		case "afterClusterTime":
			rc.after, err = timestampField(f.Key, f.Value)
			rc.hasAfter, hasCluster = true, true
		case "afterOpTime":
			rc.after, err = opTimeField(f.Value)
			rc.hasAfter, rc.hasOpTime = true, true
		case "atClusterTime":
			rc.at, err = timestampField(f.Key, f.Value)
			rc.atCluster = true
		case "allowTransactionTableSnapshot":
			if _, isBool := f.Value.(bool); !isBool {
				err = wrongType(f.Key, f.Value, "bool")
			}
		case "provenance":
		default:
			err = mongoerr.New(mongoerr.InvalidOptions, "Unrecognized option in readConcern: %s", f.Key)
		}
		if err != nil {
			return rc, err
		}
	}
	return rc, rc.check(hasCluster)
}

// check applies the cross-field rules.
func (rc readConcern) check(hasCluster bool) error {
	switch {
	case hasCluster && rc.hasOpTime:
		return mongoerr.New(mongoerr.InvalidOptions, "Can not specify both afterClusterTime and afterOpTime")
	case hasCluster && rc.atCluster:
		return mongoerr.New(mongoerr.InvalidOptions, "Specifying a timestamp for readConcern snapshot in a causally consistent session is not allowed")
	case hasCluster && rc.level != levelMajority && rc.level != levelLocal && rc.level != levelSnapshot:
		return mongoerr.New(mongoerr.InvalidOptions, "afterClusterTime field can be set only if level is equal to majority, local, or snapshot")
	case rc.hasOpTime && rc.level == levelSnapshot:
		return mongoerr.New(mongoerr.InvalidOptions, "afterOpTime field cannot be set if level is equal to snapshot")
	case rc.atCluster && rc.level != levelSnapshot:
		return mongoerr.New(mongoerr.InvalidOptions, "atClusterTime field can be set only if level is equal to snapshot")
	case hasCluster && rc.after.IsZero():
		return mongoerr.New(mongoerr.InvalidOptions, "afterClusterTime cannot be a null timestamp")
	}
	return nil
}

func parseLevel(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", wrongType("level", v, "string")
	}
	switch s {
	case levelLocal, levelAvailable, levelMajority, levelLinearizable, levelSnapshot:
		return s, nil
	}
	return "", mongoerr.New(mongoerr.FailedToParse, "readConcern.level must be either 'local', 'majority', 'linearizable', 'available', or 'snapshot'")
}

func timestampField(name string, v any) (bson.Timestamp, error) {
	ts, ok := v.(bson.Timestamp)
	if !ok {
		return ts, wrongType(name, v, "timestamp")
	}
	return ts, nil
}

// opTimeField parses afterOpTime {ts: Timestamp, t: long}.
func opTimeField(v any) (bson.Timestamp, error) {
	doc, ok := v.(bson.D)
	if !ok {
		return bson.Timestamp{}, wrongType("afterOpTime", v, "object")
	}
	tsv, ok := bsonx.Get(doc, "ts")
	if !ok {
		return bson.Timestamp{}, mongoerr.New(mongoerr.NoSuchKey, "Missing expected field \"ts\"")
	}
	if _, ok := bsonx.Get(doc, "t"); !ok {
		return bson.Timestamp{}, mongoerr.New(mongoerr.NoSuchKey, "Missing expected field \"t\"")
	}
	return timestampField("ts", tsv)
}

// wrongType is bson_extract's TypeMismatch.
func wrongType(name string, v any, want string) error {
	return mongoerr.New(mongoerr.TypeMismatch, "\"%s\" had the wrong type. Expected %s, found %s", name, want, bsonx.TypeAlias(v))
}
