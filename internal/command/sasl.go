package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// saslConvID is the conversationId MongoDB answers (one per connection).
const saslConvID = int32(1)

func saslStart(c *Ctx, p *request.SaslStart) (bson.D, error) {
	payload, err := auth.SASLPayload(p.Payload)
	if err != nil {
		return nil, err
	}
	if err := c.D.mechs.Check(p.Mechanism, c.DB); err != nil { // mechanisms.go
		return nil, c.authErr(err, p.Mechanism)
	}
	conv, err := auth.NewConversation(p.Mechanism, c.D.credentialLookup(c.DB))
	if err != nil {
		return nil, c.authErr(err, p.Mechanism)
	}
	skip := false
	if p.Options != nil {
		v, _ := bsonx.Get(*p.Options, "skipEmptyExchange")
		skip, _ = v.(bool)
	}
	c.Conn.mu.Lock()
	c.Conn.auth.conv, c.Conn.auth.convDB, c.Conn.auth.skipEmpty = conv, c.DB, skip
	c.Conn.mu.Unlock()
	return c.saslStep(conv, payload)
}

func saslContinue(c *Ctx, p *request.SaslContinue) (bson.D, error) {
	payload, err := auth.SASLPayload(p.Payload)
	if err != nil {
		return nil, err
	}
	id, ok := bsonx.AsInt64(p.ConversationID)
	c.Conn.mu.Lock()
	conv, db := c.Conn.auth.conv, c.Conn.auth.convDB
	c.Conn.mu.Unlock()
	if conv == nil || !ok || id != int64(saslConvID) || db != c.DB {
		return nil, mongoerr.New(mongoerr.ProtocolError, "No SASL session state found")
	}
	return c.saslStep(conv, payload)
}

// saslStep runs one step and, when the conversation completes, records the
// user on the connection.
func (c *Ctx) saslStep(conv *auth.Conversation, payload []byte) (bson.D, error) {
	reply, err := conv.Step(payload)
	if err != nil {
		c.Conn.mu.Lock()
		c.Conn.auth.conv = nil
		c.Conn.mu.Unlock()
		return nil, c.authErr(err, conv.Mechanism())
	}
	var privs privilege.Set // read before taking Conn.mu
	gen := c.D.authGen()
	if conv.Done() || conv.ProofVerified() {
		if err := c.D.checkRestrictions(c.DB, conv.User(), c.Conn); err != nil {
			c.Conn.mu.Lock()
			c.Conn.auth.conv = nil
			c.Conn.mu.Unlock()
			return nil, c.authErr(err, conv.Mechanism())
		}
		privs = c.D.userPrivileges(c.DB, conv.User())
	}
	c.Conn.mu.Lock()
	done := conv.Done() || (c.Conn.auth.skipEmpty && conv.ProofVerified())
	if done {
		c.Conn.auth.conv = nil
		u := authUser{user: conv.User(), db: c.DB, privs: privs, gen: gen}
		found := false
		for _, have := range c.Conn.auth.users {
			found = found || (have.user == u.user && have.db == u.db)
		}
		if !found {
			c.Conn.auth.users = append(c.Conn.auth.users, u)
		}
	}
	c.Conn.mu.Unlock()
	if done {
		loginThrottle.Succeed(auth.RemoteHost(c.Conn.Remote))
		c.D.log.Info("authenticated", "user", conv.User(), "db", c.DB, "mechanism", conv.Mechanism(), "remote", c.Conn.Remote)
	}
	return bson.D{
		{Key: "conversationId", Value: saslConvID},
		{Key: "done", Value: done},
		{Key: "payload", Value: bson.Binary{Data: reply}},
	}, nil
}

// loginThrottle slows repeated failed logins per client address.
var loginThrottle = auth.NewThrottle()

// authErr maps an auth error to MongoDB's, logs the real reason and, for
// a failed login, waits as the throttle says (bounded; shutdown ends it).
// Call it without holding Conn.mu.
func (c *Ctx) authErr(err error, mech string) error {
	return loginThrottle.Refuse(c.D.log, c.Conn.Remote, mech, err, c.D.shuttingDown())
}

func logout(c *Ctx, _ *request.Logout) (bson.D, error) {
	c.Conn.logout(c.DB)
	return bson.D{}, nil
}

// authInfo is connectionStatus's authInfo: the connection's users and
// their roles.
func (c *Ctx) authInfo() bson.D {
	users, roles := bson.A{}, bson.A{}
	if c.Conn != nil {
		for _, u := range c.Conn.authUsers() {
			users = append(users, bson.D{{Key: "user", Value: u.user}, {Key: "db", Value: u.db}})
			if auth.IsSystemUser(u.db, u.user) { // no document: the key file's user (keyfile.go)
				roles = append(roles, bson.D{{Key: "role", Value: privilege.SystemRole.Name}, {Key: "db", Value: privilege.SystemRole.DB}})
				continue
			}
			doc, err := c.D.userDoc(u.db, u.user)
			if err != nil || doc == nil {
				continue
			}
			if rs, ok := doc.Lookup("roles").ArrayOK(); ok {
				vals, _ := rs.Values()
				for _, r := range vals {
					if d, ok := r.DocumentOK(); ok {
						role, _ := bsonx.Decode(d)
						roles = append(roles, role)
					}
				}
			}
		}
	}
	return bson.D{{Key: "authenticatedUsers", Value: users}, {Key: "authenticatedUserRoles", Value: roles}}
}
