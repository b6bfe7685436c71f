package changestream

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// fullDocument and fullDocumentBeforeChange values.
const (
	FullDefault       = "default"
	FullUpdateLookup  = "updateLookup"
	FullWhenAvailable = "whenAvailable"
	FullRequired      = "required"
	BeforeOff         = "off"
)

// Options are a $changeStream stage's fields.
type Options struct {
	FullDocument             string // default "default"
	FullDocumentBeforeChange string // default "off"
	ResumeAfter              *Token
	StartAfter               *Token
	StartAtOperationTime     *bson.Timestamp
	ShowExpandedEvents       bool
	AllChangesForCluster     bool
	// FromRouter ($_fromRouter, private: the router sets it on the streams
	// it merges) resumes after a token's position even when the token's
	// event is not in this oplog (it was another shard's), and drops the
	// events of chunk migrations (entries marked fromMigrate).
	FromRouter bool
}

// FromRouterField is the private $changeStream field FromRouter is read
// from (MongoDB's mongos sends internal fields to shards likewise).
const FromRouterField = "$_fromRouter"

// ParseOptions reads the $changeStream stage's spec.
func ParseOptions(spec any) (Options, error) {
	o := Options{FullDocument: FullDefault, FullDocumentBeforeChange: BeforeOff}
	d, ok := spec.(bson.D)
	if !ok {
		return o, mongoerr.New(mongoerr.FailedToParse, "the $changeStream stage specification must be an object, got %T", spec)
	}
	for _, e := range d {
		if err := o.set(e); err != nil {
			return o, err
		}
	}
	n := 0
	for _, set := range []bool{o.ResumeAfter != nil, o.StartAfter != nil, o.StartAtOperationTime != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return o, mongoerr.New(mongoerr.ChangeStreamResumeOptions, "Only one type of resume option is allowed, but multiple were found.")
	}
	if o.ResumeAfter != nil && o.ResumeAfter.Invalidate {
		return o, mongoerr.New(mongoerr.InvalidResumeToken, "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification.")
	}
	return o, nil
}

func (o *Options) set(e bson.E) error {
	var err error
	switch e.Key {
	case "fullDocument":
		o.FullDocument, err = enum(e, FullDefault, FullUpdateLookup, FullWhenAvailable, FullRequired)
	case "fullDocumentBeforeChange":
		o.FullDocumentBeforeChange, err = enum(e, BeforeOff, FullWhenAvailable, FullRequired)
	case "resumeAfter", "startAfter":
		var t Token
		if t, err = ParseToken(e.Value); err == nil && e.Key == "resumeAfter" {
			o.ResumeAfter = &t
		} else if err == nil {
			o.StartAfter = &t
		}
	case "startAtOperationTime":
		ts, ok := e.Value.(bson.Timestamp)
		if !ok {
			return typeMismatch(e, "timestamp")
		}
		o.StartAtOperationTime = &ts
	case "showExpandedEvents":
		o.ShowExpandedEvents, err = boolField(e)
	case "allChangesForCluster":
		o.AllChangesForCluster, err = boolField(e)
	case FromRouterField:
		o.FromRouter, err = boolField(e)
	case "allowToRunOnConfigDB", "allowToRunOnSystemNS":
		_, err = boolField(e) // internal flags MongoDB accepts; no effect here
	default:
		return mongoerr.New(mongoerr.IDLUnknownField, "BSON field '$changeStream.%s' is an unknown field.", e.Key)
	}
	return err
}

func enum(e bson.E, allowed ...string) (string, error) {
	s, ok := e.Value.(string)
	if !ok {
		return "", typeMismatch(e, "string")
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field '$changeStream.%s' is not a valid value.", s, e.Key)
}

func boolField(e bson.E) (bool, error) {
	b, ok := e.Value.(bool)
	if !ok {
		return false, typeMismatch(e, "bool")
	}
	return b, nil
}

func typeMismatch(e bson.E, want string) error {
	return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%T', expected type '%s'", e.Key, e.Value, want)
}

// allowedStages are the stages a $changeStream pipeline may hold after
// $changeStream (MongoDB's allowlist).
var allowedStages = map[string]bool{
	"$match": true, "$project": true, "$addFields": true, "$set": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true, "$redact": true,
}

// splitStage is the stage that splits large events; it must be last.
const splitStage = "$changeStreamSplitLargeEvent"

// SplitStage takes a last $changeStreamSplitLargeEvent: {} off the stages
// after $changeStream (the stream splits; see Source.SplitLarge).
func SplitStage(rest bson.A) (bson.A, bool, error) {
	for i, raw := range rest {
		d, _ := raw.(bson.D)
		if len(d) != 1 || d[0].Key != splitStage {
			continue
		}
		if i != len(rest)-1 {
			return nil, false, mongoerr.New(mongoerr.StageMustBeLast, "%s must be the last stage in the pipeline", splitStage)
		}
		if spec, ok := d[0].Value.(bson.D); !ok || len(spec) > 0 {
			return nil, false, mongoerr.New(mongoerr.BadValue, "%s spec must be an empty document", splitStage)
		}
		return rest[:i], true, nil
	}
	return rest, false, nil
}

// CheckStages refuses stages after $changeStream that MongoDB does not
// allow there (IllegalOperation), and a second $changeStream (40602).
func CheckStages(rest bson.A) error {
	for _, raw := range rest {
		d, ok := raw.(bson.D)
		if !ok || len(d) != 1 {
			continue // the pipeline compiler reports the malformed stage
		}
		if d[0].Key == "$changeStream" {
			return mongoerr.New(mongoerr.StageMustBeFirst, "$changeStream is only valid as the first stage in a pipeline")
		}
		if !allowedStages[d[0].Key] {
			return mongoerr.New(mongoerr.IllegalOperation, "%s is not permitted in a $changeStream pipeline", d[0].Key)
		}
	}
	return nil
}
