package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// CreateRole is createRole: a user-defined role of the command's database.
type CreateRole struct {
	cmdspec.Cmd                `cmd:"createRole" roles:"primary"`
	Role                       string `cmd:",command"`
	Privileges                 bson.A `cmd:"privileges,required"`
	Roles                      bson.A `cmd:"roles,required"`
	AuthenticationRestrictions any    `cmd:"authenticationRestrictions"`
	Comment                    any    `cmd:"comment"`
}

// UpdateRole is updateRole: replaces a role's privileges and/or roles.
type UpdateRole struct {
	cmdspec.Cmd                `cmd:"updateRole" roles:"primary"`
	Role                       string  `cmd:",command"`
	Privileges                 *bson.A `cmd:"privileges"`
	Roles                      *bson.A `cmd:"roles"`
	AuthenticationRestrictions any     `cmd:"authenticationRestrictions"`
	Comment                    any     `cmd:"comment"`
}

// DropRole is dropRole: removes a role, and it from every user and role.
type DropRole struct {
	cmdspec.Cmd `cmd:"dropRole" roles:"primary"`
	Role        string `cmd:",command"`
	Comment     any    `cmd:"comment"`
}

// GrantRolesToRole is grantRolesToRole: adds inherited roles.
type GrantRolesToRole struct {
	cmdspec.Cmd `cmd:"grantRolesToRole" roles:"primary"`
	Role        string `cmd:",command"`
	Roles       bson.A `cmd:"roles,required"`
	Comment     any    `cmd:"comment"`
}

// RevokeRolesFromRole is revokeRolesFromRole: removes inherited roles.
type RevokeRolesFromRole struct {
	cmdspec.Cmd `cmd:"revokeRolesFromRole" roles:"primary"`
	Role        string `cmd:",command"`
	Roles       bson.A `cmd:"roles,required"`
	Comment     any    `cmd:"comment"`
}

// GrantPrivilegesToRole is grantPrivilegesToRole: adds privileges.
type GrantPrivilegesToRole struct {
	cmdspec.Cmd `cmd:"grantPrivilegesToRole" roles:"primary"`
	Role        string `cmd:",command"`
	Privileges  bson.A `cmd:"privileges,required"`
	Comment     any    `cmd:"comment"`
}

// RevokePrivilegesFromRole is revokePrivilegesFromRole: removes actions.
type RevokePrivilegesFromRole struct {
	cmdspec.Cmd `cmd:"revokePrivilegesFromRole" roles:"primary"`
	Role        string `cmd:",command"`
	Privileges  bson.A `cmd:"privileges,required"`
	Comment     any    `cmd:"comment"`
}

// DropAllRolesFromDatabase is dropAllRolesFromDatabase.
type DropAllRolesFromDatabase struct {
	cmdspec.Cmd `cmd:"dropAllRolesFromDatabase" roles:"primary"`
	Value       any `cmd:",command"`
	Comment     any `cmd:"comment"`
}

// DropAllUsersFromDatabase is dropAllUsersFromDatabase.
type DropAllUsersFromDatabase struct {
	cmdspec.Cmd `cmd:"dropAllUsersFromDatabase" roles:"primary"`
	Value       any `cmd:",command"`
	Comment     any `cmd:"comment"`
}

// RolesInfo is rolesInfo: 1 (the database's roles), a name, {role, db}, or
// a list of the last two.
type RolesInfo struct {
	cmdspec.Cmd                    `cmd:"rolesInfo" roles:"primary,secondary"`
	Value                          any   `cmd:",command"`
	ShowPrivileges                 any   `cmd:"showPrivileges"`
	ShowBuiltinRoles               *bool `cmd:"showBuiltinRoles"`
	ShowAuthenticationRestrictions any   `cmd:"showAuthenticationRestrictions"`
	Comment                        any   `cmd:"comment"`
}
