package privilege

import "go.mongodb.org/mongo-driver/v2/bson"

// userCommands gives the user and role management commands their
// privileges, as MongoDB's checks: the action on the command's database,
// and grantRole (revokeRole) on the database of every role granted
// (revoked) and of every privilege's resource (admin for the cluster,
// anyResource or every database).
func userCommands() {
	for n, a := range map[string]Action{"dropRole": DropRole, "dropAllRolesFromDatabase": DropRole,
		"dropUser": DropUser, "dropAllUsersFromDatabase": DropUser} {
		commands[n] = onDB(a)
	}
	commands["createUser"] = withRestrictions(withRoles(CreateUser, GrantRole))
	commands["createRole"] = withRoles(CreateRole, GrantRole)
	commands["updateRole"] = revokeAny(withRoles(0, GrantRole))
	commands["grantRolesToUser"] = withRoles(0, GrantRole)
	commands["grantRolesToRole"] = withRoles(0, GrantRole)
	commands["grantPrivilegesToRole"] = withRoles(0, GrantRole)
	commands["revokeRolesFromUser"] = withRoles(0, RevokeRole)
	commands["revokeRolesFromRole"] = withRoles(0, RevokeRole)
	commands["revokePrivilegesFromRole"] = withRoles(0, RevokeRole)
	commands["updateUser"] = withRestrictions(updateUser)
	commands["usersInfo"] = info("user", ViewUser)
	commands["rolesInfo"] = info("role", ViewRole)
	commands["listDatabases"] = listDatabases     // listing.go
	commands["listCollections"] = listCollections // listing.go
}

// withRoles needs own on the command's database and per on the database
// of each role in cmd.roles and each resource in cmd.privileges.
func withRoles(own, per Action) needsFunc {
	return func(db string, cmd bson.D) []Need {
		var needs []Need
		if own != 0 {
			needs = append(needs, Need{DB: db, Actions: own})
		}
		for _, r := range RoleArgs(field(cmd, "roles"), db) {
			needs = append(needs, Need{DB: r.DB, Actions: per})
		}
		privs, _ := field(cmd, "privileges").(bson.A)
		for _, p := range privs {
			d, _ := p.(bson.D)
			res, _ := field(d, "resource").(bson.D)
			rdb, _ := field(res, "db").(string)
			if rdb == "" {
				rdb = "admin"
			}
			needs = append(needs, Need{DB: rdb, Actions: per})
		}
		if len(needs) == 0 {
			needs = append(needs, Need{DB: db, Actions: per})
		}
		return needs
	}
}

// withRestrictions adds setAuthenticationRestriction on the command's
// database when it sets authenticationRestrictions, as MongoDB.
func withRestrictions(f needsFunc) needsFunc {
	return func(db string, cmd bson.D) []Need {
		needs := f(db, cmd)
		if field(cmd, "authenticationRestrictions") != nil {
			needs = append(needs, Need{DB: db, Actions: SetAuthenticationRestriction})
		}
		return needs
	}
}

// revokeAny adds revokeRole on every database to f's needs: updateRole
// and updateUser with roles replace what they hold, so MongoDB requires
// the ability to revoke any role.
func revokeAny(f needsFunc) needsFunc {
	return func(db string, cmd bson.D) []Need {
		return append(f(db, cmd), Need{DB: "", Actions: RevokeRole}) // DB "": only an any-database privilege covers it
	}
}

// updateUser needs changePassword for pwd, changeCustomData for customData,
// and for roles revokeRole on every database and grantRole on each role's.
func updateUser(db string, cmd bson.D) []Need {
	var a Action
	if field(cmd, "pwd") != nil {
		a |= ChangePassword
	}
	if field(cmd, "customData") != nil {
		a |= ChangeCustomData
	}
	needs := []Need{{DB: db, Actions: a}}
	if field(cmd, "roles") != nil {
		needs = revokeAny(withRoles(0, GrantRole))(db, cmd)
		needs = append(needs, Need{DB: db, Actions: a})
	}
	if a == 0 && len(needs) == 1 && field(cmd, "authenticationRestrictions") == nil {
		needs[0].Actions = ChangePassword
	}
	return needs
}

// info needs the view action on the database of each user (role) named:
// usersInfo/rolesInfo take 1 (the command's database), a name, {user|role,
// db} or a list of those.
func info(key string, a Action) needsFunc {
	return func(db string, cmd bson.D) []Need {
		v := cmd[0].Value
		list, ok := v.(bson.A)
		if !ok {
			list = bson.A{v}
		}
		needs := []Need{{DB: db, Actions: a}} // also for an empty list
		for i, e := range list {
			edb := db
			if d, ok := e.(bson.D); ok {
				edb, _ = field(d, "db").(string)
			}
			if i == 0 {
				needs = needs[:0]
			}
			needs = append(needs, Need{DB: edb, Actions: a})
		}
		return needs
	}
}

// RoleArgs reads a command's roles argument: names (roles of db) and
// {role, db} documents; anything else is skipped (the command refuses it).
func RoleArgs(v any, db string) []Role {
	arr, _ := v.(bson.A)
	out := make([]Role, 0, len(arr))
	for _, e := range arr {
		switch r := e.(type) {
		case string:
			out = append(out, Role{Name: r, DB: db})
		case bson.D:
			name, _ := field(r, "role").(string)
			rdb, _ := field(r, "db").(string)
			out = append(out, Role{Name: name, DB: rdb})
		}
	}
	return out
}

// SelfNeeds says what a user needs to run cmd on itself when the command's
// own check refused it: updateUser of its pwd or customData needs
// changeOwnPassword / changeOwnCustomData on its database, usersInfo of
// itself nothing (MongoDB's rules). ok is false when cmd is not such a
// request; user is the user it names (on db).
func SelfNeeds(name, db string, cmd bson.D) (user string, needs []Need, ok bool) {
	user, _ = cmd[0].Value.(string)
	switch name {
	case "updateUser":
		if user == "" || field(cmd, "roles") != nil || field(cmd, "authenticationRestrictions") != nil {
			return "", nil, false
		}
		var a Action
		if field(cmd, "pwd") != nil {
			a |= ChangeOwnPassword
		}
		if field(cmd, "customData") != nil {
			a |= ChangeOwnCustomData
		}
		return user, []Need{{DB: db, Actions: a}}, a != 0
	case "usersInfo":
		if d, isDoc := cmd[0].Value.(bson.D); isDoc {
			u, _ := field(d, "user").(string)
			udb, _ := field(d, "db").(string)
			if udb != db {
				return "", nil, false
			}
			user = u
		}
		return user, nil, user != ""
	}
	return "", nil, false
}
