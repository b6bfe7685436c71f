package spec

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

func parseReadConcern(d bson.D) *readconcern.ReadConcern {
	return &readconcern.ReadConcern{Level: getString(d, "level")}
}

func parseWriteConcern(d bson.D) (*writeconcern.WriteConcern, error) {
	wc := &writeconcern.WriteConcern{}
	for _, e := range d {
		switch e.Key {
		case "w":
			if s, ok := e.Value.(string); ok {
				wc.W = s
			} else if n, ok := asInt64(e.Value); ok {
				wc.W = int(n)
			}
		case "j", "journal":
			b, _ := e.Value.(bool)
			wc.Journal = &b
		case "wtimeoutMS", "wtimeout":
			// TODO(#2): wtimeout was removed from the v2 driver's WriteConcern.
		default:
			return nil, fmt.Errorf("runner: unsupported writeConcern field %q", e.Key)
		}
	}
	return wc, nil
}

func parseReadPref(d bson.D) (*readpref.ReadPref, error) {
	mode, err := readpref.ModeFromString(getString(d, "mode"))
	if err != nil {
		return nil, fmt.Errorf("readPreference: %w", err)
	}
	return readpref.New(mode)
}

// concerns holds the options shared by databases and collections.
type concerns struct {
	rc *readconcern.ReadConcern
	wc *writeconcern.WriteConcern
	rp *readpref.ReadPref
}

func parseConcerns(d bson.D) (concerns, error) {
	var c concerns
	var err error
	for _, e := range d {
		sub, _ := e.Value.(bson.D)
		switch e.Key {
		case "readConcern":
			c.rc = parseReadConcern(sub)
		case "writeConcern":
			c.wc, err = parseWriteConcern(sub)
		case "readPreference":
			c.rp, err = parseReadPref(sub)
		case "timeoutMS":
			// TODO(#2): client-side operation timeouts (CSOT).
		default:
			err = fmt.Errorf("runner: unsupported database/collection option %q", e.Key)
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// concernSetter is a database or collection options builder.
type concernSetter[T any] interface {
	SetReadConcern(*readconcern.ReadConcern) T
	SetWriteConcern(*writeconcern.WriteConcern) T
	SetReadPreference(*readpref.ReadPref) T
}

// setConcerns applies the concerns that are set.
func setConcerns[T concernSetter[T]](o T, c concerns) T {
	if c.rc != nil {
		o.SetReadConcern(c.rc)
	}
	if c.wc != nil {
		o.SetWriteConcern(c.wc)
	}
	if c.rp != nil {
		o.SetReadPreference(c.rp)
	}
	return o
}

func databaseOptions(d bson.D) (*options.DatabaseOptionsBuilder, concerns, error) {
	c, err := parseConcerns(d)
	return setConcerns(options.Database(), c), c, err
}

func collectionOptions(d bson.D) (*options.CollectionOptionsBuilder, concerns, error) {
	c, err := parseConcerns(d)
	return setConcerns(options.Collection(), c), c, err
}

// millis converts a numeric milliseconds argument.
func millis(v any) time.Duration {
	n, _ := asInt64(v)
	return time.Duration(n) * time.Millisecond
}

// setWC records the write concern a database or collection entity was
// created with (the v2 driver has no getter for it).
func (em *entityMap) setWC(key any, wc *writeconcern.WriteConcern) {
	if wc == nil {
		return
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	em.wcs[key] = wc
}

// writeConcern is the recorded write concern of a database or collection,
// nil for the server default.
func (em *entityMap) writeConcern(key any) *writeconcern.WriteConcern {
	em.mu.Lock()
	defer em.mu.Unlock()
	return em.wcs[key]
}
