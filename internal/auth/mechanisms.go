package auth

import (
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MechX509 is MONGODB-X509 (the authenticate command, not SASL).
const MechX509 = "MONGODB-X509"

// Mechanisms is the set of authentication mechanisms a server accepts
// (MongoDB's authenticationMechanisms parameter), sorted. Invariants: it
// holds only mechanisms relaydb implements; a nil set (a server set up
// without the parameter being applied) accepts every supported mechanism
// and reports DefaultMechanisms(false).
type Mechanisms []string

// supportedMechanisms are the mechanisms relaydb implements.
var supportedMechanisms = []string{MechX509, MechSHA1, MechSHA256}

// DefaultMechanisms is what a server accepts without the parameter: both
// SCRAMs, and MONGODB-X509 when it speaks TLS.
func DefaultMechanisms(tls bool) Mechanisms {
	if tls {
		return Mechanisms{MechX509, MechSHA1, MechSHA256}
	}
	return Mechanisms{MechSHA1, MechSHA256}
}

// ParseMechanisms reads --setParameter authenticationMechanisms: a
// comma-separated, non-empty list of supported mechanisms.
func ParseMechanisms(s string) (Mechanisms, error) {
	var out Mechanisms
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		if !slices.Contains(supportedMechanisms, m) {
			return nil, fmt.Errorf("authenticationMechanisms: unsupported mechanism %q (supported: %s)", m, strings.Join(supportedMechanisms, ", "))
		}
		out = append(out, m)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Enabled reports whether mech is accepted.
func (m Mechanisms) Enabled(mech string) bool {
	if m == nil {
		m = supportedMechanisms
	}
	return slices.Contains(m, mech)
}

// Check refuses a login with a mechanism that is not enabled, with an
// error wrapping ErrMechanismUnavailable. A SCRAM login on the local
// database (__system with the key file, the only user there) is always
// accepted, so member authentication does not depend on the parameter,
// as in MongoDB.
func (m Mechanisms) Check(mech, db string) error {
	if m.Enabled(mech) || (db == SystemDB && (mech == MechSHA1 || mech == MechSHA256)) {
		return nil
	}
	return fmt.Errorf("%w: Received authentication for mechanism %s which is unknown or not enabled", ErrMechanismUnavailable, mech)
}

// Filter keeps the enabled mechanisms of mechs (saslSupportedMechs).
func (m Mechanisms) Filter(mechs []string) bson.A {
	out := bson.A{}
	for _, x := range mechs {
		if m.Enabled(x) {
			out = append(out, x)
		}
	}
	return out
}

// BSON is the getParameter value.
func (m Mechanisms) BSON() bson.A {
	if m == nil {
		m = DefaultMechanisms(false)
	}
	out := make(bson.A, len(m))
	for i, x := range m {
		out[i] = x
	}
	return out
}
