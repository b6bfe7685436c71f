package auth

import (
	"errors"
	"fmt"
	"net/netip"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Restrictions are a user's authenticationRestrictions, as MongoDB's: a
// list of documents {clientSource: [IP|CIDR...], serverAddress:
// [IP|CIDR...]}. A login is allowed when at least one document is
// satisfied, and a document is satisfied when the client's address is in
// its clientSource and the address the client connected to is in its
// serverAddress (a field left out restricts nothing). No documents: any
// address.
type Restrictions []Restriction

// Restriction is one restriction document; a nil list restricts nothing.
type Restriction struct {
	ClientSource, ServerAddress *allowlist.List
}

// maxRestrictionDocs bounds a user's restriction documents.
const maxRestrictionDocs = 256

// ParseRestrictions reads an authenticationRestrictions value (an array of
// documents). Errors are BadValue naming the problem.
func ParseRestrictions(v any) (Restrictions, error) {
	if v == nil {
		return nil, nil
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "authenticationRestrictions must be an array, not %T", v)
	}
	if len(arr) > maxRestrictionDocs {
		return nil, mongoerr.New(mongoerr.BadValue, "authenticationRestrictions holds %d documents; at most %d", len(arr), maxRestrictionDocs)
	}
	out := make(Restrictions, 0, len(arr))
	for i, e := range arr {
		doc, ok := e.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.BadValue, "authenticationRestrictions entry %d must be a document", i)
		}
		r, err := parseRestriction(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRestriction(doc bson.D) (Restriction, error) {
	var r Restriction
	for _, e := range doc {
		arr, ok := e.Value.(bson.A)
		if !ok && (e.Key == "clientSource" || e.Key == "serverAddress") {
			return r, mongoerr.New(mongoerr.BadValue, "'%s' must be an array of IP addresses or CIDR ranges", e.Key)
		}
		var dst **allowlist.List
		switch e.Key {
		case "clientSource":
			dst = &r.ClientSource
		case "serverAddress":
			dst = &r.ServerAddress
		default:
			return r, mongoerr.New(mongoerr.BadValue, "Unknown authentication restriction field: %s", e.Key)
		}
		l, err := parseAddresses(e.Key, arr)
		if err != nil {
			return r, err
		}
		*dst = &l
	}
	return r, nil
}

func parseAddresses(field string, arr bson.A) (allowlist.List, error) {
	entries := make([]string, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok {
			return allowlist.List{}, mongoerr.New(mongoerr.BadValue, "'%s' entry %d must be a string", field, i)
		}
		entries[i] = s
	}
	l, err := allowlist.Parse(entries)
	var ee *allowlist.EntryError
	if errors.As(err, &ee) {
		return l, mongoerr.New(mongoerr.BadValue, "'%s' entry %d %q is not an IP address or CIDR range: %s", field, ee.Index, ee.Entry, ee.Reason)
	}
	if err != nil {
		return l, mongoerr.New(mongoerr.BadValue, "'%s': %v", field, err)
	}
	return l, nil
}

// Allows reports whether a client at client that connected to server may
// log in.
func (rs Restrictions) Allows(client, server netip.Addr) bool {
	if len(rs) == 0 {
		return true
	}
	for _, r := range rs {
		if inList(r.ClientSource, client) && inList(r.ServerAddress, server) {
			return true
		}
	}
	return false
}

func inList(l *allowlist.List, a netip.Addr) bool { return l == nil || (a.IsValid() && l.Contains(a)) }

// CheckRestrictions checks a user document's authenticationRestrictions
// (stored as given, already validated) against the connection's client
// and local "host:port" addresses. The error wraps ErrAuthFailed: the
// client sees AuthenticationFailed, the log the reason.
func CheckRestrictions(stored bson.RawValue, remote, local string) error {
	if stored.Type == 0 {
		return nil
	}
	var v bson.A
	if err := stored.Unmarshal(&v); err != nil {
		return fmt.Errorf("%w: unreadable authenticationRestrictions: %v", ErrAuthFailed, err)
	}
	rs, err := ParseRestrictions(v)
	if err != nil {
		return fmt.Errorf("%w: stored authenticationRestrictions: %v", ErrAuthFailed, err)
	}
	client, _ := addrOf(remote)
	server, _ := addrOf(local)
	if !rs.Allows(client, server) {
		return fmt.Errorf("%w: client %s connected to %s is outside the user's authenticationRestrictions", ErrAuthFailed, remote, local)
	}
	return nil
}

func addrOf(hostPort string) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(hostPort)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}
