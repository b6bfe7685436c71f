package crash

import (
	"context"
	"testing"

	"github.com/relaydb/relaydb/internal/crashtest"
	"github.com/relaydb/relaydb/tests/harness"
)

// standalone is a crashtest.Target over one tests/harness server.
type standalone struct {
	t *testing.T
	s *harness.Server
}

func (a *standalone) Name() string                                { return "standalone" }
func (a *standalone) URI() string                                 { return a.s.URI() }
func (a *standalone) WriteConcern() crashtest.WriteConcern        { return crashtest.WJournal }
func (a *standalone) KillAll(context.Context) error               { a.s.Kill9(); return nil }
func (a *standalone) DBPaths() []string                           { return []string{a.s.DBPath()} }
func (a *standalone) CheckURIs(context.Context) ([]string, error) { return []string{a.s.URI()}, nil }

// RestartAll restarts the server on the same port and dbpath (harness
// fails the test itself if it does not come up).
func (a *standalone) RestartAll(context.Context) error {
	a.s.Restart(a.t)
	return nil
}
