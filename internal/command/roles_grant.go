package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// grantRolesToRole adds inherited roles (each must exist; no cycle).
func grantRolesToRole(c *Ctx, p *request.GrantRolesToRole) (bson.D, error) {
	return c.changeRole(p.Role, "roles", len(p.Roles), func(doc *privilege.RoleDoc) error {
		add, err := c.roleArgs(p.Roles)
		if err == nil {
			doc.Roles = distinctRoles(doc.Roles, add)
		}
		return err
	})
}

// revokeRolesFromRole removes inherited roles (absent or unknown ones are
// ignored, as MongoDB).
func revokeRolesFromRole(c *Ctx, p *request.RevokeRolesFromRole) (bson.D, error) {
	return c.changeRole(p.Role, "roles", len(p.Roles), func(doc *privilege.RoleDoc) error {
		if err := roleForms(p.Roles); err != nil {
			return err
		}
		rm := privilege.RoleArgs(p.Roles, c.DB)
		kept := doc.Roles[:0]
		for _, r := range doc.Roles {
			if !containsRole(rm, r) {
				kept = append(kept, r)
			}
		}
		doc.Roles = kept
		return nil
	})
}

// grantPrivilegesToRole adds privileges (merged per resource).
func grantPrivilegesToRole(c *Ctx, p *request.GrantPrivilegesToRole) (bson.D, error) {
	return c.changeRole(p.Role, "privileges", len(p.Privileges), func(doc *privilege.RoleDoc) error {
		add, err := privilege.ParseGrants(p.Privileges)
		if err == nil {
			doc.Privileges = privilege.MergeGrants(doc.Privileges, add)
		}
		return err
	})
}

// revokePrivilegesFromRole removes actions from the role's privileges on
// the same resources (absent ones are ignored).
func revokePrivilegesFromRole(c *Ctx, p *request.RevokePrivilegesFromRole) (bson.D, error) {
	return c.changeRole(p.Role, "privileges", len(p.Privileges), func(doc *privilege.RoleDoc) error {
		rm, err := privilege.ParseGrants(p.Privileges)
		if err == nil {
			doc.Privileges = privilege.RemoveGrants(doc.Privileges, rm)
		}
		return err
	})
}

// changeRole runs one read-modify-write of a user-defined role of c.DB:
// field names the argument that must be non-empty (n its length); change
// edits the document, which is then checked (CheckGrantable) and stored.
func (c *Ctx) changeRole(name, field string, n int, change func(*privilege.RoleDoc) error) (bson.D, error) {
	if n == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "%s command requires a non-empty \"%s\" array", c.Name, field)
	}
	roleWriteMu.Lock()
	defer roleWriteMu.Unlock()
	r, doc, err := c.userDefinedRole(name)
	if err != nil {
		return nil, err
	}
	if err := change(doc); err != nil {
		return nil, err
	}
	if err := privilege.CheckGrantable(r, doc.Privileges, doc.Roles, c.D.roleLookup()); err != nil {
		return nil, err
	}
	set := bson.D{{Key: "privileges", Value: grantsBSON(doc.Privileges)}, {Key: "roles", Value: rolesBSON(doc.Roles)}}
	return bson.D{}, c.setRole(r, set)
}

// roleForms checks a roles argument's form only (names or {role, db}).
func roleForms(given bson.A) error {
	for _, r := range given {
		switch v := r.(type) {
		case string:
			continue
		case bson.D:
			if len(v) == 2 && len(privilege.RoleArgs(bson.A{v}, "")) == 1 {
				continue
			}
		}
		return mongoerr.New(mongoerr.BadValue, "Role names must be either strings or objects of the form {role: roleName, db: databaseName}")
	}
	return nil
}

func containsRole(rs []privilege.Role, r privilege.Role) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
