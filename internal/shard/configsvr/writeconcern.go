package configsvr

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// writeTimeout is the wtimeout of metadata writes made without a client's
// write concern (MongoDB's kMajorityWriteConcern waits 60 s; relaydb
// keeps its shorter bound).
const writeTimeout = 15 * time.Second

type wcKey struct{}

// WithWriteConcern returns ctx carrying wc (from MajorityWriteConcern):
// the metadata writes made under ctx use it instead of the default
// {w: "majority", wtimeout: writeTimeout}.
func WithWriteConcern(ctx context.Context, wc bson.D) context.Context {
	return context.WithValue(ctx, wcKey{}, wc)
}

// majority is the write concern of a metadata write under ctx.
func majority(ctx context.Context) bson.D {
	if wc, ok := ctx.Value(wcKey{}).(bson.D); ok {
		return wc
	}
	return bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int64(writeTimeout / time.Millisecond)}}
}

// MajorityWriteConcern is the write concern a router's metadata command
// (addShard, enableSharding, shardCollection, split, drop) writes with,
// from the client's writeConcern field as MongoDB's
// CommandHelpers::appendMajorityWriteConcern makes it: a majority write
// concern is used as given; any other keeps only its wtimeout (0 or
// absent: no time limit) with w "majority"; none is nil (the default).
// A malformed one is FailedToParse.
func MajorityWriteConcern(cmd bson.D) (bson.D, error) {
	v, ok := bsonx.Get(cmd, "writeConcern")
	if !ok {
		return nil, nil
	}
	wc, isDoc := v.(bson.D)
	if !isDoc {
		return nil, mongoerr.New(mongoerr.FailedToParse, "writeConcern must be an object")
	}
	var timeout int64
	if t, ok := bsonx.Get(wc, "wtimeout"); ok {
		n, isNum := bsonx.AsInt64(t)
		if !isNum {
			return nil, mongoerr.New(mongoerr.FailedToParse, "wtimeout must be a number")
		}
		timeout = n
	}
	switch w, _ := bsonx.Get(wc, "w"); w.(type) {
	case nil, string, int32, int64, float64:
		if w == "majority" {
			return wc, nil
		}
	default:
		return nil, mongoerr.New(mongoerr.FailedToParse, "w has to be a number or string")
	}
	out := bson.D{{Key: "w", Value: "majority"}}
	if timeout > 0 {
		out = append(out, bson.E{Key: "wtimeout", Value: timeout})
	}
	return out, nil
}
