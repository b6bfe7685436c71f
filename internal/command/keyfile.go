package command

import (
	"fmt"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
)

// Member authentication with a key file (issue #13): with SetKeyFile, the
// internal user __system@local logs in with SCRAM credentials derived from
// the key file's keys (any key matches, for rotation) and holds
// privilege.SystemRole. It is not a document in admin.system.users: a
// user of that name elsewhere, or without a key file, does not exist.

// SetKeyFile gives the dispatcher the member key file (before serving).
func (d *Dispatcher) SetKeyFile(kf *auth.KeyFile) error {
	creds, err := kf.SystemCredentials()
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	d.system = &creds
	return nil
}

// systemCredentials answers a credential lookup for __system@local: ok is
// false for any other user; without a key file the user does not exist.
func (d *Dispatcher) systemCredentials(db, user string) (creds auth.Credentials, ok bool, err error) {
	if !auth.IsSystemUser(db, user) {
		return auth.Credentials{}, false, nil
	}
	if d.system == nil {
		return auth.Credentials{}, true, auth.ErrUserNotFound
	}
	return *d.system, true, nil
}

// systemPrivileges returns __system@local's privileges (ok false for any
// other user). Only a login with the key or internalConn holds the user.
func (d *Dispatcher) systemPrivileges(db, user string) (privilege.Set, bool) {
	if !auth.IsSystemUser(db, user) {
		return nil, false
	}
	return privilege.SystemPrivileges(), true
}

// internalConn is the connection of this process's own commands run
// through the dispatcher (localRunner): authenticated as __system@local,
// as MongoDB's internal client, so --auth does not refuse them.
func (d *Dispatcher) internalConn() *Conn {
	c := NewConn(0, "internal", "")
	c.auth.users = []authUser{{user: auth.SystemUser, db: auth.SystemDB, privs: privilege.SystemPrivileges(), gen: d.authGen()}}
	return c
}
