package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// GrantRolesToUser is grantRolesToUser: adds roles to a user.
type GrantRolesToUser struct {
	cmdspec.Cmd `cmd:"grantRolesToUser" roles:"primary"`
	User        string `cmd:",command"`
	Roles       bson.A `cmd:"roles,required"`
	Comment     any    `cmd:"comment"`
}

// RevokeRolesFromUser is revokeRolesFromUser: removes roles from a user.
type RevokeRolesFromUser struct {
	cmdspec.Cmd `cmd:"revokeRolesFromUser" roles:"primary"`
	User        string `cmd:",command"`
	Roles       bson.A `cmd:"roles,required"`
	Comment     any    `cmd:"comment"`
}
