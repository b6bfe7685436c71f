package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// grantRolesToUser adds roles ({role, db} or a name of the command's
// database) to a user of the command's database; unknown roles are
// RoleNotFound and change nothing. Logged-in connections re-read their
// users' roles before their next command (usersChanged).
func grantRolesToUser(c *Ctx, p *request.GrantRolesToUser) (bson.D, error) {
	return c.changeUserRoles(p.User, p.Roles, "$addToSet")
}

// revokeRolesFromUser removes roles from a user (absent ones are ignored,
// unknown ones are RoleNotFound as in MongoDB).
func revokeRolesFromUser(c *Ctx, p *request.RevokeRolesFromUser) (bson.D, error) {
	return c.changeUserRoles(p.User, p.Roles, "$pullAll")
}

func (c *Ctx) changeUserRoles(user string, given bson.A, op string) (bson.D, error) {
	if len(given) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "%s command requires a non-empty \"roles\" array", c.Name)
	}
	roles, err := c.parseRoles(given)
	if err != nil {
		return nil, err
	}
	arg := any(roles)
	if op == "$addToSet" {
		arg = bson.D{{Key: "$each", Value: roles}}
	}
	stmt := exec.UpdateStmt{Q: bson.D{{Key: "_id", Value: userID(c.DB, user)}}, U: bson.D{{Key: op, Value: bson.D{{Key: "roles", Value: arg}}}}}
	res := c.D.eng.Update(usersDB, usersColl, []exec.UpdateStmt{stmt}, true, nil, nil)
	usersChanged()
	if err := writeErr(res); err != nil {
		return nil, err
	}
	if res.N == 0 {
		return nil, mongoerr.New(mongoerr.UserNotFound, "Could not find user \"%s\" for db \"%s\"", user, c.DB)
	}
	return bson.D{}, nil
}
