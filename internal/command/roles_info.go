package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// rolesInfo describes roles as MongoDB does: 1 (the database's
// user-defined roles, and its built-in ones with showBuiltinRoles), a name,
// {role, db} or a list of those; missing roles are left out. Each shows
// its direct and inherited roles and, with showPrivileges, its direct and
// inherited privileges ("asUserFragment": one user-shaped document).
func rolesInfo(c *Ctx, p *request.RolesInfo) (bson.D, error) {
	names, err := c.rolesInfoNames(p.Value, p.ShowBuiltinRoles != nil && *p.ShowBuiltinRoles)
	if err != nil {
		return nil, err
	}
	lookup := c.D.roleLookup()
	if p.ShowPrivileges == "asUserFragment" {
		all := privilege.ResolveAll(names, lookup)
		frag := bson.D{{Key: "roles", Value: rolesBSON(names)}, {Key: "inheritedRoles", Value: rolesBSON(all.Roles)},
			{Key: "inheritedPrivileges", Value: grantsBSON(all.Grants)}}
		return bson.D{{Key: "userFragment", Value: frag}}, nil
	}
	showPrivs, _ := p.ShowPrivileges.(bool)
	out := bson.A{}
	for _, r := range names {
		if d, ok := roleInfo(r, lookup, showPrivs); ok {
			out = append(out, d)
		}
	}
	return bson.D{{Key: "roles", Value: out}}, nil
}

// roleInfo describes one role (false: no such role).
func roleInfo(r privilege.Role, lookup privilege.Lookup, showPrivs bool) (bson.D, bool) {
	var direct []privilege.Grant
	var inherits []privilege.Role
	builtin := privilege.Exists(r)
	d := bson.D{}
	if builtin {
		privs, _ := privilege.Privileges(r)
		for _, p := range privs {
			direct = privilege.MergeGrants(direct, []privilege.Grant{privilege.GrantOf(p)})
		}
	} else {
		doc, ok := lookup(r)
		if !ok {
			return nil, false
		}
		direct, inherits = doc.Privileges, doc.Roles
		d = append(d, bson.E{Key: "_id", Value: roleID(r)})
	}
	all := privilege.ResolveAll([]privilege.Role{r}, lookup)
	d = append(d, bson.E{Key: "role", Value: r.Name}, bson.E{Key: "db", Value: r.DB}, bson.E{Key: "isBuiltin", Value: builtin},
		bson.E{Key: "roles", Value: rolesBSON(inherits)}, bson.E{Key: "inheritedRoles", Value: rolesBSON(all.Roles[1:])})
	if showPrivs {
		d = append(d, bson.E{Key: "privileges", Value: grantsBSON(direct)}, bson.E{Key: "inheritedPrivileges", Value: grantsBSON(all.Grants)})
	}
	return d, true
}

// rolesInfoNames turns rolesInfo's value into the roles to describe.
func (c *Ctx) rolesInfoNames(v any, builtins bool) ([]privilege.Role, error) {
	if n, ok := bsonx.AsInt64(v); ok && n == 1 {
		docs, err := c.D.findAuthDocs(rolesColl, bson.D{{Key: "db", Value: c.DB}}, maxRolesReply)
		if err != nil {
			return nil, err
		}
		var out []privilege.Role
		if builtins {
			out = privilege.BuiltinRoles(c.DB)
		}
		for _, raw := range docs {
			if doc, err := privilege.ParseRoleDoc(raw); err == nil {
				out = append(out, doc.Role)
			}
		}
		return out, nil
	}
	list, isList := v.(bson.A)
	if !isList {
		list = bson.A{v}
	}
	if err := roleForms(list); err != nil || len(list) > maxRolesReply {
		return nil, mongoerr.New(mongoerr.BadValue, "Role names must be either strings or objects of the form {role: roleName, db: databaseName}")
	}
	return privilege.RoleArgs(list, c.DB), nil
}
