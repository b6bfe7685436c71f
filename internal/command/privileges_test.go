package command

import (
	"testing"

	"github.com/relaydb/relaydb/internal/auth/privilege"
)

// TestEveryCommandHasPrivileges: a registered command without an entry in
// package privilege would be refused to every user under --auth.
func TestEveryCommandHasPrivileges(t *testing.T) {
	for _, c := range commands {
		if !privilege.Known(c.Name) {
			t.Errorf("command %s has no privilege mapping (internal/auth/privilege/commands.go)", c.Name)
		}
	}
}
