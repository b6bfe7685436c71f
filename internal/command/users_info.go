package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// usersInfo returns users as MongoDB does: without credentials unless
// showCredentials, with the mechanisms they may use and, with
// showPrivileges, the roles they hold transitively and those roles'
// privileges.
func usersInfo(c *Ctx, p *request.UsersInfo) (bson.D, error) {
	filter, err := usersFilter(p.Value, c.DB)
	if err != nil {
		return nil, err
	}
	if p.Filter != nil {
		extra, ok := p.Filter.(bson.D)
		if !ok {
			return nil, c.typeErr("filter", p.Filter, "object")
		}
		filter = bson.D{{Key: "$and", Value: bson.A{filter, extra}}}
	}
	showPrivs, _ := p.ShowPrivileges.(bool)
	docs, err := c.D.findUsers(filter, maxUsersReply)
	if err != nil {
		return nil, err
	}
	showCreds := p.ShowCredentials != nil && *p.ShowCredentials
	showCustom := p.ShowCustomData == nil || *p.ShowCustomData
	showRestrictions, _ := p.ShowAuthenticationRestrictions.(bool)
	users := bson.A{}
	for _, raw := range docs {
		d, err := bsonx.Decode(raw)
		if err != nil {
			return nil, err
		}
		u := userInfoDoc(d, showCreds, showCustom, showRestrictions)
		if showPrivs {
			all := privilege.ResolveAll(privilege.RolesOf(raw.Lookup("roles")), c.D.roleLookup())
			u = append(u, bson.E{Key: "inheritedRoles", Value: rolesBSON(all.Roles)},
				bson.E{Key: "inheritedPrivileges", Value: grantsBSON(all.Grants)},
				bson.E{Key: "inheritedAuthenticationRestrictions", Value: inheritedRestrictions(d)})
		}
		users = append(users, u)
	}
	return bson.D{{Key: "users", Value: users}}, nil
}

// inheritedRestrictions are a user's restrictions as usersInfo's
// inheritedAuthenticationRestrictions shows them (roles carry none here).
func inheritedRestrictions(d bson.D) bson.A {
	if v, ok := bsonx.Get(d, "authenticationRestrictions"); ok {
		if a, ok := v.(bson.A); ok && len(a) > 0 {
			return bson.A{a}
		}
	}
	return bson.A{}
}

func userInfoDoc(d bson.D, showCreds, showCustom, showRestrictions bool) bson.D {
	out := bson.D{}
	var mechs bson.A
	for _, e := range d {
		switch e.Key {
		case "authenticationRestrictions":
			if !showRestrictions {
				continue
			}
		case "credentials":
			if cd, ok := e.Value.(bson.D); ok {
				for _, m := range cd {
					mechs = append(mechs, m.Key)
				}
			}
			if !showCreds {
				continue
			}
		case "customData":
			if !showCustom {
				continue
			}
		}
		out = append(out, e)
	}
	if mechs == nil {
		mechs = bson.A{}
	}
	return append(out, bson.E{Key: "mechanisms", Value: mechs})
}

// usersFilter turns usersInfo's value into a filter on admin.system.users:
// 1 (the database's users), "name", {user, db}, or an array of the last two.
func usersFilter(v any, db string) (bson.D, error) {
	if n, ok := bsonx.AsInt64(v); ok && n == 1 {
		return bson.D{{Key: "db", Value: db}}, nil
	}
	if a, ok := v.(bson.A); ok {
		ids := bson.A{}
		for _, e := range a {
			id, err := userIDOf(e, db)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, nil
	}
	id, err := userIDOf(v, db)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "_id", Value: id}}, nil
}

func userIDOf(v any, db string) (string, error) {
	switch u := v.(type) {
	case string:
		return userID(db, u), nil
	case bson.D:
		name, _ := bsonx.Get(u, "user")
		udb, _ := bsonx.Get(u, "db")
		ns, ok1 := name.(string)
		ds, ok2 := udb.(string)
		if ok1 && ok2 {
			return userID(ds, ns), nil
		}
	}
	return "", mongoerr.New(mongoerr.BadValue, "User name must be either a string or an object of the form {user: userName, db: databaseName}")
}
