package failpoint

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mode is when a fail point acts: on, after skipping skip activations,
// for times activations (-1: until turned off).
type mode struct {
	on          bool
	times, skip int
}

// consume uses one activation; false when the fail point does not act
// (off, skipping, or its times used up, which turns it off).
func (c *mode) consume() bool {
	if !c.on {
		return false
	}
	if c.skip > 0 {
		c.skip--
		return false
	}
	if c.times == 0 {
		c.on = false
		return false
	}
	if c.times > 0 {
		c.times--
	}
	return true
}

// setMode reads mode: "alwaysOn", "off", or {times, skip,
// activationProbability (accepted, not applied)}.
func (c *mode) setMode(md any) error {
	switch m := md.(type) {
	case string:
		switch m {
		case "alwaysOn":
			c.on = true
		case "off":
		default:
			return mongoerr.New(mongoerr.BadValue, "unknown fail point mode: %s", m)
		}
		return nil
	case bson.D:
		c.on = true
		for _, e := range m {
			n, _ := bsonx.AsInt64(e.Value)
			switch e.Key {
			case "times":
				c.times = int(n)
			case "skip":
				c.skip = int(n)
			case "activationProbability":
			default:
				return mongoerr.New(mongoerr.BadValue, "unknown fail point mode field: %s", e.Key)
			}
		}
		return nil
	}
	return mongoerr.New(mongoerr.TypeMismatch, "mode must be a string or a document")
}

// setData reads failCommand's data document.
func (c *config) setData(data bson.D) error {
	blocking := false
	for _, e := range data {
		switch e.Key {
		case "failCommands":
			a, _ := e.Value.(bson.A)
			for _, v := range a {
				if s, ok := v.(string); ok {
					c.commands[s] = true
				}
			}
		case "errorCode":
			n, _ := bsonx.AsInt64(e.Value)
			c.act.code = int32(n)
		case "errorLabels":
			a, _ := e.Value.(bson.A)
			c.act.labels = []string{}
			for _, v := range a {
				if s, ok := v.(string); ok {
					c.act.labels = append(c.act.labels, s)
				}
			}
		case "closeConnection":
			c.act.closeConn, _ = e.Value.(bool)
		case "blockConnection":
			blocking, _ = e.Value.(bool)
		case "blockTimeMS":
			n, _ := bsonx.AsInt64(e.Value)
			c.act.block = time.Duration(n) * time.Millisecond
		case "writeConcernError":
			c.act.wce, _ = e.Value.(bson.D)
		case "appName":
			c.appName, _ = e.Value.(string)
		case "failInternalCommands":
		default:
			return mongoerr.New(mongoerr.BadValue, "unknown failCommand data field: %s", e.Key)
		}
	}
	if !blocking {
		c.act.block = 0
	}
	return nil
}
