package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// createRole stores a new role of the command's database after MongoDB's
// checks: a name, not local/$external, not a built-in name, known actions,
// existing roles, no cycle, and (outside admin) only its database's roles
// and resources; an existing role is 51002.
func createRole(c *Ctx, p *request.CreateRole) (bson.D, error) {
	r := privilege.Role{Name: p.Role, DB: c.DB}
	switch {
	case p.Role == "":
		return nil, mongoerr.New(mongoerr.BadValue, "Role name must be non-empty")
	case c.DB == "local":
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot create roles in the local database")
	case c.DB == "$external":
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot create roles in the $external database")
	case privilege.Exists(r):
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot create roles with the same name as a built-in role")
	}
	if err := unsupportedRoleRestrictions(p.AuthenticationRestrictions); err != nil {
		return nil, err
	}
	grants, err := privilege.ParseGrants(p.Privileges)
	if err != nil {
		return nil, err
	}
	roleWriteMu.Lock()
	defer roleWriteMu.Unlock()
	roles, err := c.roleArgs(p.Roles)
	if err != nil {
		return nil, err
	}
	if err := privilege.CheckGrantable(r, grants, roles, c.D.roleLookup()); err != nil {
		return nil, err
	}
	doc := bson.D{{Key: "_id", Value: roleID(r)}, {Key: "role", Value: r.Name}, {Key: "db", Value: r.DB},
		{Key: "privileges", Value: grantsBSON(grants)}, {Key: "roles", Value: rolesBSON(roles)}}
	res := c.D.eng.Insert(usersDB, rolesColl, []bson.D{doc}, true, nil)
	usersChanged()
	if err := writeErr(res); err != nil {
		if mongoerr.From(err).Code == mongoerr.DuplicateKey {
			return nil, mongoerr.New(mongoerr.RoleAlreadyExists, "Role \"%s\" already exists", r)
		}
		return nil, err
	}
	return bson.D{}, nil
}

// updateRole replaces a role's privileges and/or roles.
func updateRole(c *Ctx, p *request.UpdateRole) (bson.D, error) {
	if p.Privileges == nil && p.Roles == nil && p.AuthenticationRestrictions == nil {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one field to update in updateRole")
	}
	if err := unsupportedRoleRestrictions(p.AuthenticationRestrictions); err != nil {
		return nil, err
	}
	roleWriteMu.Lock()
	defer roleWriteMu.Unlock()
	r, doc, err := c.userDefinedRole(p.Role)
	if err != nil {
		return nil, err
	}
	grants, roles, set := doc.Privileges, doc.Roles, bson.D{}
	if p.Privileges != nil {
		if grants, err = privilege.ParseGrants(*p.Privileges); err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "privileges", Value: grantsBSON(grants)})
	}
	if p.Roles != nil {
		if roles, err = c.roleArgs(*p.Roles); err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "roles", Value: rolesBSON(roles)})
	}
	if err := privilege.CheckGrantable(r, grants, roles, c.D.roleLookup()); err != nil {
		return nil, err
	}
	if len(set) == 0 {
		return bson.D{}, nil // authenticationRestrictions: [] changes nothing
	}
	return bson.D{}, c.setRole(r, set)
}

// dropRole removes a role from every user and role holding it, then the
// role itself (MongoDB's order, without its transaction: a failure part
// way leaves the role held by fewer users, never a dangling grant).
func dropRole(c *Ctx, p *request.DropRole) (bson.D, error) {
	roleWriteMu.Lock()
	defer roleWriteMu.Unlock()
	r, _, err := c.userDefinedRole(p.Role)
	if err != nil {
		return nil, err
	}
	match := bson.D{{Key: "role", Value: r.Name}, {Key: "db", Value: r.DB}}
	return nil, c.dropRoles(match, bson.D{{Key: "_id", Value: roleID(r)}}, nil)
}

// dropAllRolesFromDatabase drops every user-defined role of the command's
// database (at most maxRolesReply per call), each as dropRole does: {n:
// roles removed}. Built-in roles stay on their users.
func dropAllRolesFromDatabase(c *Ctx, _ *request.DropAllRolesFromDatabase) (bson.D, error) {
	roleWriteMu.Lock()
	defer roleWriteMu.Unlock()
	docs, err := c.D.findAuthDocs(rolesColl, bson.D{{Key: "db", Value: c.DB}}, maxRolesReply)
	if err != nil {
		return nil, err
	}
	var n int64
	for _, raw := range docs {
		doc, err := privilege.ParseRoleDoc(raw)
		if err != nil {
			continue
		}
		var one int64
		match := bson.D{{Key: "role", Value: doc.Role.Name}, {Key: "db", Value: doc.Role.DB}}
		if err := c.dropRoles(match, bson.D{{Key: "_id", Value: roleID(doc.Role)}}, &one); err != nil {
			return nil, err
		}
		n += one
	}
	return bson.D{{Key: "n", Value: int32(n)}}, nil
}

// dropRoles pulls the roles matching elem from users and roles, then
// deletes the role documents matching q (n: how many).
func (c *Ctx) dropRoles(elem, q bson.D, n *int64) error {
	pull := exec.UpdateStmt{
		Q:     bson.D{{Key: "roles", Value: bson.D{{Key: "$elemMatch", Value: elem}}}},
		U:     bson.D{{Key: "$pull", Value: bson.D{{Key: "roles", Value: elem}}}},
		Multi: true,
	}
	defer usersChanged()
	for _, coll := range []string{usersColl, rolesColl} {
		if err := writeErr(c.D.eng.Update(usersDB, coll, []exec.UpdateStmt{pull}, true, nil, nil)); err != nil {
			return err
		}
	}
	res := c.D.eng.Delete(usersDB, rolesColl, []exec.DeleteStmt{{Q: q}}, true, nil, nil)
	if n != nil {
		*n = res.N
	}
	return writeErr(res)
}

// dropAllUsersFromDatabase removes every user of the command's database:
// {n: users removed}.
func dropAllUsersFromDatabase(c *Ctx, _ *request.DropAllUsersFromDatabase) (bson.D, error) {
	res := c.D.eng.Delete(usersDB, usersColl, []exec.DeleteStmt{{Q: bson.D{{Key: "db", Value: c.DB}}}}, true, nil, nil)
	usersChanged()
	if err := writeErr(res); err != nil {
		return nil, err
	}
	return bson.D{{Key: "n", Value: int32(res.N)}}, nil
}
