package router

import (
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// SASL on the router: the same conversation (package auth) and replies as
// a data node's (internal/command/sasl.go), with credentials from the
// config servers' users, read anew for each login.

// saslConvID is the conversationId MongoDB answers (one per connection).
const saslConvID = int32(1)

func init() {
	localCommands["saslStart"] = handler{fn: saslStart}
	localCommands["saslContinue"] = handler{fn: saslContinue}
	localCommands["logout"] = handler{fn: logout}
}

// credentialLookup is a conversation's view of db's users.
func (c *call) credentialLookup(db string) auth.Lookup {
	return func(user string) (auth.Credentials, error) {
		e, err := c.r.auth.users.get(c.ctx, db, user, true)
		if err != nil {
			return auth.Credentials{}, err
		}
		return e.credentials()
	}
}

func saslStart(c *call) (bson.D, error) {
	mv, _ := bsonx.Get(c.cmd, "mechanism")
	mech, ok := mv.(string)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'saslStart.mechanism' is missing or not a string")
	}
	pv, _ := bsonx.Get(c.cmd, "payload")
	payload, err := auth.SASLPayload(pv)
	if err != nil {
		return nil, err
	}
	if err := c.r.opts.AuthMechanisms.Check(mech, c.db); err != nil { // authenticationMechanisms
		return nil, c.authErr(err, mech)
	}
	conv, err := auth.NewConversation(mech, c.credentialLookup(c.db))
	if err != nil {
		return nil, c.authErr(err, mech)
	}
	skip := false
	if o, ok := bsonx.Get(c.cmd, "options"); ok {
		od, _ := o.(bson.D)
		v, _ := bsonx.Get(od, "skipEmptyExchange")
		skip, _ = v.(bool)
	}
	ca := c.r.connAuthOf(c.conn)
	ca.mu.Lock()
	ca.conv, ca.convDB, ca.skipEmpty = conv, c.db, skip
	ca.mu.Unlock()
	return c.saslStep(ca, conv, payload)
}

func saslContinue(c *call) (bson.D, error) {
	pv, _ := bsonx.Get(c.cmd, "payload")
	payload, err := auth.SASLPayload(pv)
	if err != nil {
		return nil, err
	}
	idv, _ := bsonx.Get(c.cmd, "conversationId")
	id, ok := bsonx.AsInt64(idv)
	ca := c.r.connAuthOf(c.conn)
	ca.mu.Lock()
	conv, db := ca.conv, ca.convDB
	ca.mu.Unlock()
	if conv == nil || !ok || id != int64(saslConvID) || db != c.db {
		return nil, mongoerr.New(mongoerr.ProtocolError, "No SASL session state found")
	}
	return c.saslStep(ca, conv, payload)
}

// saslStep runs one step and records the user when the login completes.
// The conversation runs outside ca.mu: only this connection drives it.
func (c *call) saslStep(ca *connAuth, conv *auth.Conversation, payload []byte) (bson.D, error) {
	reply, err := conv.Step(payload)
	if err != nil {
		ca.mu.Lock()
		ca.conv = nil
		ca.mu.Unlock()
		return nil, c.authErr(err, conv.Mechanism())
	}
	if conv.Done() || conv.ProofVerified() {
		if err := c.checkRestrictions(c.db, conv.User()); err != nil {
			ca.mu.Lock()
			ca.conv = nil
			ca.mu.Unlock()
			return nil, c.authErr(err, conv.Mechanism())
		}
	}
	ca.mu.Lock()
	done := conv.Done() || (ca.skipEmpty && conv.ProofVerified())
	if done {
		ca.conv = nil
		ca.addUser(userRef{user: conv.User(), db: c.db})
	}
	ca.mu.Unlock()
	if done {
		c.r.loginThrottle.Succeed(auth.RemoteHost(c.conn.Remote))
		c.r.log.Info("authenticated", "user", conv.User(), "db", c.db, "mechanism", conv.Mechanism(), "remote", c.conn.Remote)
	}
	return bson.D{
		{Key: "conversationId", Value: saslConvID},
		{Key: "done", Value: done},
		{Key: "payload", Value: bson.Binary{Data: reply}},
	}, nil
}

// checkRestrictions refuses a login the user's authenticationRestrictions
// do not allow from the client's address at this router (the user as the
// conversation's lookup read it).
func (c *call) checkRestrictions(db, user string) error {
	e, err := c.r.auth.users.get(c.ctx, db, user, false)
	if err != nil || e.doc == nil {
		return err
	}
	return auth.CheckRestrictions(e.doc.Lookup("authenticationRestrictions"), c.conn.Remote, c.conn.Local)
}

// authErr maps an auth error to MongoDB's, logs the real reason and, for
// a failed login, waits as the throttle says (shutdown ends the wait). A
// failure to read the users (config servers unreachable) is returned as
// it is: the client may retry.
func (c *call) authErr(err error, mech string) error {
	var me *mongoerr.Error
	if errors.As(err, &me) {
		c.r.log.Warn("authentication: cannot read the user", "remote", c.conn.Remote, "err", err)
		return me
	}
	return c.r.loginThrottle.Refuse(c.r.log, c.conn.Remote, mech, err, c.r.done)
}

func logout(c *call) (bson.D, error) {
	c.r.connAuthOf(c.conn).logout(c.db)
	return bson.D{}, nil
}

// authInfo is connectionStatus's authInfo: the connection's users and
// their roles (from the user cache).
func (c *call) authInfo() bson.D {
	users, roles := bson.A{}, bson.A{}
	for _, u := range c.r.authUsers(c.conn) {
		users = append(users, bson.D{{Key: "user", Value: u.user}, {Key: "db", Value: u.db}})
		if e, err := c.r.auth.users.get(c.ctx, u.db, u.user, false); err == nil {
			roles = append(roles, e.roles...)
		}
	}
	return bson.D{{Key: "authenticatedUsers", Value: users}, {Key: "authenticatedUserRoles", Value: roles}}
}

// helloAuth answers hello's saslSupportedMechs and speculativeAuthenticate,
// whatever Options.Auth says (as mongos); a failed speculative attempt is
// left out of the reply and the driver authenticates normally.
func (c *call) helloAuth() bson.D {
	var out bson.D
	if v, ok := bsonx.Get(c.cmd, "saslSupportedMechs"); ok {
		if mechs := c.supportedMechs(v); mechs != nil {
			out = append(out, bson.E{Key: "saslSupportedMechs", Value: mechs})
		}
	}
	if v, ok := bsonx.Get(c.cmd, "speculativeAuthenticate"); ok {
		if reply := c.speculative(v); reply != nil {
			out = append(out, bson.E{Key: "speculativeAuthenticate", Value: reply})
		}
	}
	return out
}

func (c *call) supportedMechs(v any) bson.A {
	s, _ := v.(string)
	db, user, found := strings.Cut(s, ".")
	if !found || db == "" || user == "" {
		return nil
	}
	creds, err := c.credentialLookup(db)(user)
	if err != nil {
		return nil
	}
	return c.r.opts.AuthMechanisms.Filter(creds.Mechanisms()) // only the enabled ones
}

// speculative runs {saslStart, mechanism, payload, db} from hello.
func (c *call) speculative(v any) bson.D {
	d, ok := v.(bson.D)
	if ok && len(d) > 0 && d[0].Key == "authenticate" {
		return c.speculativeX509(d) // auth_x509.go
	}
	if !ok || len(d) == 0 || d[0].Key != "saslStart" {
		return nil
	}
	dbv, _ := bsonx.Get(d, "db")
	db, _ := dbv.(string)
	mech, _ := bsonx.Get(d, "mechanism")
	if ms, _ := mech.(string); db == "" || (ms != auth.MechSHA1 && ms != auth.MechSHA256) {
		return nil
	}
	sub := *c
	sub.db, sub.cmd, sub.name = db, d, "saslStart"
	reply, err := saslStart(&sub)
	if err != nil {
		return nil
	}
	return reply
}
