package command

import (
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Users live in admin.system.users as MongoDB stores them: {_id: "db.user",
// userId, user, db, credentials: {SCRAM-SHA-1: {...}, SCRAM-SHA-256: {...}},
// roles: [{role, db}]}, written through the engine so they replicate and
// survive restart. Roles must be built-in ones (privileges.go enforces them).
const (
	usersDB       = "admin"
	usersColl     = "system.users"
	maxUsersReply = 10000 // usersInfo's bound on users returned
)

func userID(db, user string) string { return db + "." + user }

// findUsers returns the user documents matching filter (at most limit).
func (d *Dispatcher) findUsers(filter bson.D, limit int64) ([]bson.Raw, error) {
	return d.findAuthDocs(usersColl, filter, limit)
}

// userDoc returns db.user's document, or nil.
func (d *Dispatcher) userDoc(db, user string) (bson.Raw, error) {
	docs, err := d.findUsers(bson.D{{Key: "_id", Value: userID(db, user)}}, 1)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

// checkRestrictions refuses a login that the user's
// authenticationRestrictions do not allow from the connection's addresses
// (an error wrapping auth.ErrAuthFailed). __system has none.
func (d *Dispatcher) checkRestrictions(db, user string, c *Conn) error {
	if auth.IsSystemUser(db, user) {
		return nil
	}
	doc, err := d.userDoc(db, user)
	if err != nil || doc == nil {
		return err
	}
	return auth.CheckRestrictions(doc.Lookup("authenticationRestrictions"), c.Remote, c.Local)
}

// anyUser reports whether any user exists (the localhost exception ends).
func (d *Dispatcher) anyUser() bool {
	docs, err := d.findUsers(nil, 1)
	return err != nil || len(docs) > 0
}

// credentialLookup is the SASL conversation's view of db's users.
func (d *Dispatcher) credentialLookup(db string) auth.Lookup {
	return func(user string) (auth.Credentials, error) {
		if creds, ok, err := d.systemCredentials(db, user); ok {
			return creds, err
		}
		doc, err := d.userDoc(db, user)
		if err != nil {
			return auth.Credentials{}, err
		}
		if doc == nil {
			return auth.Credentials{}, auth.ErrUserNotFound
		}
		creds, ok := doc.Lookup("credentials").DocumentOK()
		if !ok {
			return auth.Credentials{}, auth.ErrUserNotFound
		}
		return auth.ParseCredentials(creds)
	}
}

// parseRoles reads createUser/updateUser roles: "name" (a role of the
// command's database) or {role, db}.
func (c *Ctx) parseRoles(roles bson.A) (bson.A, error) {
	db := c.DB
	out := bson.A{}
	for _, r := range roles {
		switch v := r.(type) {
		case string:
			out = append(out, bson.D{{Key: "role", Value: v}, {Key: "db", Value: db}})
		case bson.D:
			nv, _ := bsonx.Get(v, "role")
			dv, _ := bsonx.Get(v, "db")
			name, ok1 := nv.(string)
			rdb, ok2 := dv.(string)
			if !ok1 || !ok2 || len(v) != 2 {
				return nil, mongoerr.New(mongoerr.BadValue, "Role names must be either strings or objects of the form {role: roleName, db: databaseName}")
			}
			out = append(out, bson.D{{Key: "role", Value: name}, {Key: "db", Value: rdb}})
		default:
			return nil, mongoerr.New(mongoerr.BadValue, "Role names must be either strings or objects of the form {role: roleName, db: databaseName}")
		}
	}
	return out, c.D.checkRolesExist(out)
}

// mechanisms reads the mechanisms field (nil: both SCRAM mechanisms).
func mechanisms(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	a, ok := v.(bson.A)
	if !ok || len(a) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "mechanisms field must not be empty")
	}
	var out []string
	for _, m := range a {
		s, ok := m.(string)
		if !ok || (s != auth.MechSHA1 && s != auth.MechSHA256) {
			return nil, mongoerr.New(mongoerr.BadValue, "Unknown auth mechanism '%v'", m)
		}
		out = append(out, s)
	}
	return out, nil
}

// unsupportedUserOptions refuses the option relaydb would otherwise
// silently ignore: client-digested passwords (digestPassword: false).
func unsupportedUserOptions(digest any) error {
	if digest != nil {
		if b, ok := digest.(bool); !ok || !b {
			return mongoerr.New(mongoerr.BadValue, "digestPassword: false is not supported: send the password and let the server digest it")
		}
	}
	return nil
}

// unsupportedRoleRestrictions refuses authentication restrictions on a
// role (a security control relaydb would otherwise ignore); users'
// restrictions are enforced (restrictions.go).
func unsupportedRoleRestrictions(restrictions any) error {
	if a, ok := restrictions.(bson.A); restrictions != nil && (!ok || len(a) > 0) {
		return mongoerr.New(mongoerr.NotImplemented, "authenticationRestrictions on roles are not supported by relaydb yet; set them on users")
	}
	return nil
}

func newCredentials(user string, pwd *string, mechs any) (auth.Credentials, error) {
	if pwd == nil || *pwd == "" {
		return auth.Credentials{}, mongoerr.New(mongoerr.BadValue, "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db")
	}
	ms, err := mechanisms(mechs)
	if err != nil {
		return auth.Credentials{}, err
	}
	creds, err := auth.NewCredentials(user, *pwd, ms)
	if err != nil {
		return auth.Credentials{}, mongoerr.New(mongoerr.BadValue, "%v", err)
	}
	return creds, nil
}

func newUUID() bson.Binary {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: b}
}

// writeErr returns a write result's first error, if any.
func writeErr(res *exec.WriteResult) error {
	if len(res.Errors) > 0 {
		return res.Errors[0].Err
	}
	return nil
}

func createUser(c *Ctx, p *request.CreateUser) (bson.D, error) {
	if p.User == "" {
		return nil, mongoerr.New(mongoerr.BadValue, "User document needs 'user' field to be non-empty")
	}
	if err := unsupportedUserOptions(p.DigestPassword); err != nil {
		return nil, err
	}
	if _, err := auth.ParseRestrictions(p.AuthenticationRestrictions); err != nil {
		return nil, err
	}
	roles, err := c.parseRoles(p.Roles)
	if err != nil {
		return nil, err
	}
	creds, err := userCredentials(c.DB, p.User, p.Pwd, p.Mechanisms)
	if err != nil {
		return nil, err
	}
	if doc, err := c.D.userDoc(c.DB, p.User); err != nil || doc != nil {
		if err != nil {
			return nil, err
		}
		return nil, mongoerr.New(mongoerr.UserAlreadyExists, "User \"%s@%s\" already exists", p.User, c.DB)
	}
	doc := bson.D{
		{Key: "_id", Value: userID(c.DB, p.User)}, {Key: "userId", Value: newUUID()},
		{Key: "user", Value: p.User}, {Key: "db", Value: c.DB},
		{Key: "credentials", Value: creds}, {Key: "roles", Value: roles},
	}
	if p.CustomData != nil {
		doc = append(doc, bson.E{Key: "customData", Value: *p.CustomData})
	}
	if p.AuthenticationRestrictions != nil {
		doc = append(doc, bson.E{Key: "authenticationRestrictions", Value: p.AuthenticationRestrictions})
	}
	res := c.D.eng.Insert(usersDB, usersColl, []bson.D{doc}, true, nil)
	if err := writeErr(res); err != nil {
		if mongoerr.From(err).Code == mongoerr.DuplicateKey {
			return nil, mongoerr.New(mongoerr.UserAlreadyExists, "User \"%s@%s\" already exists", p.User, c.DB)
		}
		return nil, err
	}
	return bson.D{}, nil
}

func updateUser(c *Ctx, p *request.UpdateUser) (bson.D, error) {
	if err := unsupportedUserOptions(p.DigestPassword); err != nil {
		return nil, err
	}
	if _, err := auth.ParseRestrictions(p.AuthenticationRestrictions); err != nil {
		return nil, err
	}
	set := bson.D{}
	if p.Pwd != nil {
		creds, err := userCredentials(c.DB, p.User, p.Pwd, p.Mechanisms)
		if err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "credentials", Value: creds})
	}
	if p.Roles != nil {
		roles, err := c.parseRoles(*p.Roles)
		if err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "roles", Value: roles})
	}
	if p.CustomData != nil {
		set = append(set, bson.E{Key: "customData", Value: *p.CustomData})
	}
	if p.AuthenticationRestrictions != nil {
		set = append(set, bson.E{Key: "authenticationRestrictions", Value: p.AuthenticationRestrictions})
	}
	if len(set) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one field to update in updateUser")
	}
	stmt := exec.UpdateStmt{Q: bson.D{{Key: "_id", Value: userID(c.DB, p.User)}}, U: bson.D{{Key: "$set", Value: set}}}
	res := c.D.eng.Update(usersDB, usersColl, []exec.UpdateStmt{stmt}, true, nil, nil)
	usersChanged()
	if err := writeErr(res); err != nil {
		return nil, err
	}
	if res.N == 0 {
		return nil, mongoerr.New(mongoerr.UserNotFound, "Could not find user \"%s\" for db \"%s\"", p.User, c.DB)
	}
	return bson.D{}, nil
}

func dropUser(c *Ctx, p *request.DropUser) (bson.D, error) {
	stmt := exec.DeleteStmt{Q: bson.D{{Key: "_id", Value: userID(c.DB, p.User)}}, Limit: 1}
	res := c.D.eng.Delete(usersDB, usersColl, []exec.DeleteStmt{stmt}, true, nil, nil)
	usersChanged()
	if err := writeErr(res); err != nil {
		return nil, err
	}
	if res.N == 0 {
		return nil, mongoerr.New(mongoerr.UserNotFound, "Could not find user \"%s\" for db \"%s\"", p.User, c.DB)
	}
	return bson.D{}, nil
}
