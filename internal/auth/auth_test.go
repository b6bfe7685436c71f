package auth

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// driverClient builds the client exactly as the Go driver does
// (x/mongo/driver/auth/scram.go).
func driverClient(t testing.TB, mech, user, pass string) *scram.ClientConversation {
	t.Helper()
	var cl *scram.Client
	var err error
	if mech == MechSHA1 {
		cl, err = scram.SHA1.NewClientUnprepped(user, MongoPasswordDigest(user, pass), "")
	} else {
		var prepped string
		prepped, err = stringprep.SASLprep.Prepare(pass)
		if err == nil {
			cl, err = scram.SHA256.NewClientUnprepped(user, prepped, "")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return cl.WithMinIterations(4096).NewConversation()
}

func lookupOf(users map[string]Credentials) Lookup {
	return func(u string) (Credentials, error) {
		c, ok := users[u]
		if !ok {
			return Credentials{}, ErrUserNotFound
		}
		return c, nil
	}
}

// login runs a whole conversation; it returns the server's error, if any.
func login(t *testing.T, mech, user, pass string, lookup Lookup) error {
	t.Helper()
	conv, err := NewConversation(mech, lookup)
	if err != nil {
		return err
	}
	cc := driverClient(t, mech, user, pass)
	first, err := cc.Step("")
	if err != nil {
		t.Fatal(err)
	}
	srvFirst, err := conv.Step([]byte(first))
	if err != nil {
		return err
	}
	final, err := cc.Step(string(srvFirst))
	if err != nil {
		t.Fatalf("client rejected server-first: %v", err)
	}
	srvFinal, err := conv.Step([]byte(final))
	if err != nil {
		return err
	}
	if _, err := cc.Step(string(srvFinal)); err != nil || !cc.Valid() {
		t.Fatalf("client did not verify the server signature: %v", err)
	}
	if !conv.ProofVerified() || conv.Done() {
		t.Fatal("want proof verified and not yet done")
	}
	if _, err := conv.Step(nil); err != nil || !conv.Done() {
		t.Fatalf("empty exchange: %v done=%v", err, conv.Done())
	}
	if conv.User() != user {
		t.Fatalf("User() = %q", conv.User())
	}
	return nil
}

func TestLogin(t *testing.T) {
	alice, err := NewCredentials("alice", "s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	// "IX" with a soft hyphen SASLprep's to "IX" (RFC 4013 example).
	roman, _ := NewCredentials("roman", "I\u00ADX", []string{MechSHA256})
	only1, _ := NewCredentials("old", "pw", []string{MechSHA1})
	lookup := lookupOf(map[string]Credentials{"alice": alice, "roman": roman, "old": only1, "a=b,c": alice})
	for _, tc := range []struct {
		name, mech, user, pass string
		want                   error
	}{
		{"sha256 ok", MechSHA256, "alice", "s3cret", nil},
		{"sha1 ok", MechSHA1, "alice", "s3cret", nil},
		{"sha256 wrong password", MechSHA256, "alice", "wrong", ErrAuthFailed},
		{"sha1 wrong password", MechSHA1, "alice", "wrong", ErrAuthFailed},
		{"unknown user", MechSHA256, "mallory", "x", ErrAuthFailed},
		{"unknown user sha1", MechSHA1, "mallory", "x", ErrAuthFailed},
		{"saslprep", MechSHA256, "roman", "IX", nil},
		{"no sha256 credential", MechSHA256, "old", "pw", ErrAuthFailed},
		{"no sha1 credential", MechSHA1, "roman", "IX", ErrAuthFailed},
		{"escaped user name, other's credentials", MechSHA1, "a=b,c", "s3cret", ErrAuthFailed},
		{"unknown mechanism", "PLAIN", "alice", "s3cret", ErrMechanismUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := login(t, tc.mech, tc.user, tc.pass, lookup)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestEscapedUser: a user name with "=" and "," logs in (the library sends
// it escaped; the server looks up the decoded name).
func TestEscapedUser(t *testing.T) {
	c, _ := NewCredentials("a=b,c", "pw", nil)
	lookup := lookupOf(map[string]Credentials{"a=b,c": c})
	for _, m := range []string{MechSHA1, MechSHA256} {
		if err := login(t, m, "a=b,c", "pw", lookup); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
}

func TestCredentialsFormat(t *testing.T) {
	c, err := NewCredentials("u", "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s                *SCRAMCredential
		iters, salt, key int
	}{{c.SHA1, 10000, 16, 20}, {c.SHA256, 15000, 28, 32}} {
		salt, _ := base64.StdEncoding.DecodeString(tc.s.Salt)
		sk, _ := base64.StdEncoding.DecodeString(tc.s.StoredKey)
		if tc.s.IterationCount != tc.iters || len(salt) != tc.salt || len(sk) != tc.key {
			t.Fatalf("got %+v", tc.s)
		}
	}
	raw, _ := bson.Marshal(c.BSON())
	if strings.Contains(string(raw), "\"p\"") || strings.Contains(string(raw), MongoPasswordDigest("u", "p")) {
		t.Fatal("credentials contain the password or its digest")
	}
	back, err := ParseCredentials(raw)
	if err != nil || *back.SHA1 != *c.SHA1 || *back.SHA256 != *c.SHA256 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	if got := MongoPasswordDigest("user", "pencil"); got != "1c33006ec1ffd90f9cadcbcc0e118200" {
		t.Fatalf("digest %s", got)
	}
	if _, err := NewCredentials("u", "", nil); err == nil {
		t.Fatal("empty password accepted")
	}
}

func TestParseCredentialsBad(t *testing.T) {
	for _, d := range []bson.D{
		{{Key: MechSHA1, Value: "x"}},
		{{Key: MechSHA1, Value: bson.D{{Key: "iterationCount", Value: 0}}}},
		{{Key: MechSHA256, Value: bson.D{{Key: "iterationCount", Value: 15000}, {Key: "salt", Value: "!!"}, {Key: "storedKey", Value: ""}, {Key: "serverKey", Value: ""}}}},
		{{Key: MechSHA256, Value: bson.D{{Key: "iterationCount", Value: 15000}, {Key: "salt", Value: 1}}}},
	} {
		raw, _ := bson.Marshal(d)
		if _, err := ParseCredentials(raw); err == nil {
			t.Fatalf("accepted %v", d)
		}
	}
}

func TestMalformedPayloads(t *testing.T) {
	c, _ := NewCredentials("alice", "pw", nil)
	lookup := lookupOf(map[string]Credentials{"alice": c})
	for _, tc := range []struct {
		name   string
		first  string
		second string // used when first succeeds
		want   error
	}{
		{"empty", "", "", ErrAuthFailed},
		{"garbage", "hello", "", ErrAuthFailed},
		{"no nonce", "n,,n=alice", "", ErrAuthFailed},
		{"bad utf8", "n,,n=\xff,r=abc", "", ErrAuthFailed},
		{"oversized", "n,,n=" + strings.Repeat("a", MaxPayload) + ",r=abc", "", ErrProtocol},
		{"wrong nonce", "n,,n=alice,r=abc", "c=biws,r=zzz,p=AAAA", ErrAuthFailed},
		{"bad proof", "n,,n=alice,r=abc", "", ErrAuthFailed},
		{"bad name escape", "n,,n=al=ZZice,r=abc", "", ErrAuthFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv, _ := NewConversation(MechSHA256, lookup)
			reply, err := conv.Step([]byte(tc.first))
			if err == nil {
				second := tc.second
				if second == "" { // a well-formed final message with a wrong proof
					nonce := strings.SplitN(strings.TrimPrefix(string(reply), "r="), ",", 2)[0]
					second = "c=biws,r=" + nonce + ",p=" + base64.StdEncoding.EncodeToString(make([]byte, 32))
				}
				_, err = conv.Step([]byte(second))
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if conv.Done() {
				t.Fatal("done after a failure")
			}
		})
	}
}

// TestReplayedNonce: the server-final of one conversation cannot be
// replayed into another (each server nonce is fresh).
func TestReplayedNonce(t *testing.T) {
	c, _ := NewCredentials("alice", "pw", nil)
	lookup := lookupOf(map[string]Credentials{"alice": c})
	cc := driverClient(t, MechSHA256, "alice", "pw")
	first, _ := cc.Step("")
	a, _ := NewConversation(MechSHA256, lookup)
	sf, _ := a.Step([]byte(first))
	final, _ := cc.Step(string(sf))
	b, _ := NewConversation(MechSHA256, lookup)
	if _, err := b.Step([]byte(first)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Step([]byte(final)); !errors.Is(err, ErrAuthFailed) {
		t.Fatalf("replay: %v", err)
	}
	if _, err := a.Step([]byte(final)); err != nil {
		t.Fatalf("original: %v", err)
	}
}

// TestUnknownUserLooksReal: the first reply for a missing user has the
// same shape and a stable salt, so it does not reveal the user is missing.
func TestUnknownUserLooksReal(t *testing.T) {
	lookup := lookupOf(nil)
	salt := func() string {
		conv, _ := NewConversation(MechSHA256, lookup)
		r, err := conv.Step([]byte("n,,n=ghost,r=abc"))
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(string(r), ",")
		if len(parts) != 3 || parts[2] != "i=15000" {
			t.Fatalf("reply %q", r)
		}
		return parts[1]
	}
	if a, b := salt(), salt(); a != b {
		t.Fatalf("decoy salt not stable: %s %s", a, b)
	}
}

func TestStepAfterDone(t *testing.T) {
	c, _ := NewCredentials("alice", "pw", nil)
	lookup := lookupOf(map[string]Credentials{"alice": c})
	if err := login(t, MechSHA1, "alice", "pw", lookup); err != nil {
		t.Fatal(err)
	}
	conv, _ := NewConversation(MechSHA1, lookup)
	cc := driverClient(t, MechSHA1, "alice", "pw")
	f, _ := cc.Step("")
	s, _ := conv.Step([]byte(f))
	f2, _ := cc.Step(string(s))
	if _, err := conv.Step([]byte(f2)); err != nil {
		t.Fatal(err)
	}
	if _, err := conv.Step([]byte("x")); !errors.Is(err, ErrProtocol) {
		t.Fatalf("payload after final: %v", err)
	}
}

func FuzzSASLPayload(f *testing.F) {
	c, _ := NewCredentials("alice", "pw", []string{MechSHA1})
	lookup := lookupOf(map[string]Credentials{"alice": c})
	f.Add([]byte("n,,n=alice,r=abc"), []byte("c=biws,r=abc,p=AAAA"))
	f.Add([]byte("y,a=x,n=alice,r=abc"), []byte(""))
	f.Add([]byte("p=tls-unique,,n=alice,r=a"), []byte("c=,r=,p="))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		conv, err := NewConversation(MechSHA1, lookup)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conv.Step(first); err != nil {
			return
		}
		if _, err := conv.Step(second); err == nil {
			t.Fatalf("a fuzzed proof was accepted: %q %q", first, second)
		}
	})
}

// BenchmarkNewCredentials is createUser's cost: PBKDF2 with 10000
// (SHA-1) and 15000 (SHA-256) iterations.
func BenchmarkNewCredentials(b *testing.B) {
	for b.Loop() {
		if _, err := NewCredentials("u", "p", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServerLogin is the server's side of one SCRAM-SHA-256 login
// (the client's PBKDF2 is cached by the library after the first).
func BenchmarkServerLogin(b *testing.B) {
	c, _ := NewCredentials("u", "p", nil)
	lookup := lookupOf(map[string]Credentials{"u": c})
	cl, _ := scram.SHA256.NewClientUnprepped("u", "p", "")
	for b.Loop() {
		cc := cl.NewConversation()
		conv, _ := NewConversation(MechSHA256, lookup)
		f, _ := cc.Step("")
		s1, _ := conv.Step([]byte(f))
		f2, _ := cc.Step(string(s1))
		if _, err := conv.Step([]byte(f2)); err != nil {
			b.Fatal(err)
		}
	}
}
