package command

import "github.com/relaydb/relaydb/internal/auth"

// Authentication mechanisms (issue #13): the server accepts only the
// mechanisms of authenticationMechanisms (--setParameter; default both
// SCRAMs, plus MONGODB-X509 with TLS), as MongoDB: saslStart or
// authenticate with another is MechanismUnavailable (334),
// saslSupportedMechs lists only enabled ones and getParameter reports
// the set. Member logins are exempt: __system@local's SCRAM (key file)
// and a member certificate's MONGODB-X509.
//
// TODO(#14): setParameter authenticationMechanisms at runtime answers
// "unrecognized parameter" rather than MongoDB's startup-only refusal.

// SetAuthMechanisms sets the accepted mechanisms, before serving.
func (d *Dispatcher) SetAuthMechanisms(m auth.Mechanisms) { d.mechs = m }
