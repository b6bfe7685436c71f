package command

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
)

// helloAuth answers hello's authentication fields, whatever --auth says
// (as mongod): saslSupportedMechs "db.user" lists the user's mechanisms
// (omitted for a missing user), and speculativeAuthenticate runs the
// saslStart it carries on this connection; a failed speculative attempt is
// omitted from the reply and the driver authenticates normally.
func (c *Ctx) helloAuth(rest bson.D) bson.D {
	var out bson.D
	if v, ok := bsonx.Get(rest, "saslSupportedMechs"); ok {
		if mechs := c.supportedMechs(v); mechs != nil {
			out = append(out, bson.E{Key: "saslSupportedMechs", Value: mechs})
		}
	}
	if v, ok := bsonx.Get(rest, "speculativeAuthenticate"); ok {
		if reply := c.speculative(v); reply != nil {
			out = append(out, bson.E{Key: "speculativeAuthenticate", Value: reply})
		}
	}
	return out
}

func (c *Ctx) supportedMechs(v any) bson.A {
	s, ok := v.(string)
	db, user, found := strings.Cut(s, ".")
	if !ok || !found || db == "" || user == "" {
		return nil
	}
	creds, err := c.D.credentialLookup(db)(user)
	if err != nil {
		return nil
	}
	return c.D.mechs.Filter(creds.Mechanisms()) // only the enabled ones (mechanisms.go)
}

// speculative runs {saslStart, mechanism, payload, db} from hello.
func (c *Ctx) speculative(v any) bson.D {
	d, ok := v.(bson.D)
	if ok && len(d) > 0 && d[0].Key == "authenticate" {
		return c.speculativeX509(d)
	}
	if !ok || len(d) == 0 || d[0].Key != "saslStart" {
		return nil
	}
	dbv, _ := bsonx.Get(d, "db")
	db, _ := dbv.(string)
	mech, _ := bsonx.Get(d, "mechanism")
	ms, _ := mech.(string)
	payload, _ := bsonx.Get(d, "payload")
	if db == "" || ms == "" || payload == nil || (ms != auth.MechSHA1 && ms != auth.MechSHA256) {
		return nil
	}
	p := &request.SaslStart{Mechanism: ms, Payload: payload}
	if o, ok := bsonx.Get(d, "options"); ok {
		if od, ok := o.(bson.D); ok {
			p.Options = &od
		}
	}
	sub := *c
	sub.DB = db
	reply, err := saslStart(&sub, p)
	if err != nil {
		return nil
	}
	return reply
}
