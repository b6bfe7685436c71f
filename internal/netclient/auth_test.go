package netclient

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
)

// saslServer answers saslStart/saslContinue with the real server-side
// conversation (internal/auth) for __system@local with its key file, and
// ping only after a login. Mode "early" claims success with its first
// message, before proving it knows the key.
type saslServer struct {
	ln     net.Listener
	creds  auth.Credentials
	mode   string
	logins atomic.Int32
}

func startSASL(t testing.TB, mode string, keys ...string) *saslServer {
	t.Helper()
	creds, err := (&auth.KeyFile{Path: "test", Keys: keys}).SystemCredentials()
	if err != nil {
		t.Fatal(err)
	}
	s := &saslServer{creds: creds, mode: mode}
	s.ln = listenOpMsg(t, s.conn)
	return s
}

// conn is a connection's handler: its SASL conversation and login.
func (s *saslServer) conn() opMsgHandler {
	var conv *auth.Conversation
	authed := false
	return func(cmd bson.D) (bson.D, bool) {
		reply := bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(13)}, {Key: "errmsg", Value: "requires authentication"}}
		switch cmd[0].Key {
		case "ping":
			if authed {
				reply = bson.D{{Key: "ok", Value: 1.0}}
			}
		case "saslStart", "saslContinue":
			if s.mode == "hang" {
				time.Sleep(5 * time.Second)
				return nil, false
			}
			if conv == nil {
				conv, _ = auth.NewConversation(auth.MechSHA256, func(u string) (auth.Credentials, error) {
					if db, _ := bsonx.Get(cmd, "$db"); u != auth.SystemUser || db != auth.SystemDB {
						return auth.Credentials{}, auth.ErrUserNotFound
					}
					return s.creds, nil
				})
			}
			p, _ := bsonx.Get(cmd, "payload")
			out, err := conv.Step(p.(bson.Binary).Data)
			done := conv.ProofVerified()
			if s.mode == "early" {
				done = err == nil
			}
			if err != nil {
				reply = bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(18)}, {Key: "errmsg", Value: "Authentication failed."}}
				break
			}
			authed = done
			if done {
				s.logins.Add(1)
			}
			reply = bson.D{{Key: "conversationId", Value: int32(1)}, {Key: "done", Value: done}, {Key: "payload", Value: bson.Binary{Data: out}}, {Key: "ok", Value: 1.0}}
		}
		return reply, true
	}
}

func keyPool(t *testing.T, key string, log *slog.Logger) *Pool {
	t.Helper()
	cred, err := KeyFileCredential(&auth.KeyFile{Keys: []string{key}})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPool(Options{Auth: cred, Logger: log, DialTimeout: 500 * time.Millisecond})
	t.Cleanup(p.Close)
	return p
}

func TestPoolLogsIn(t *testing.T) {
	srv := startSASL(t, "", "rightkey", "nextkey")
	for _, key := range []string{"rightkey", "nextkey"} {
		p := keyPool(t, key, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := p.Run(ctx, srv.ln.Addr().String(), "admin", bson.D{{Key: "ping", Value: 1}}); err != nil {
			t.Fatalf("key %s: %v", key, err)
		}
		cancel()
	}
	if n := srv.logins.Load(); n != 2 {
		t.Fatalf("logins = %d, want 2", n)
	}
	// A pooled connection logs in once, not per command.
	p := keyPool(t, "rightkey", nil)
	for range 5 {
		if _, err := p.Run(context.Background(), srv.ln.Addr().String(), "admin", bson.D{{Key: "ping", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.logins.Load(); n != 3 {
		t.Fatalf("logins = %d after 5 pings on one pool, want 3", n)
	}
	// Without a credential nothing is sent first: ping is refused.
	plain := NewPool(Options{})
	defer plain.Close()
	if _, err := plain.Run(context.Background(), srv.ln.Addr().String(), "admin", bson.D{{Key: "ping", Value: 1}}); err == nil {
		t.Fatal("ping without login succeeded")
	}
}

func TestPoolLoginFailures(t *testing.T) {
	for _, tc := range []struct {
		name, mode, srvKey, want string
	}{
		{"wrong key", "", "otherkey", "Authentication failed."},
		{"server skips its proof", "early", "rightkey", "before proving it knows the key"},
		{"server never answers", "hang", "rightkey", "timeout (to saslStart)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startSASL(t, tc.mode, tc.srvKey)
			var buf bytes.Buffer
			p := keyPool(t, "rightkey", slog.New(slog.NewTextHandler(&buf, nil)))
			host := srv.ln.Addr().String()
			for range 3 {
				start := time.Now()
				_, err := p.Run(context.Background(), host, "admin", bson.D{{Key: "ping", Value: 1}})
				if d := time.Since(start); d > 2*time.Second {
					t.Fatalf("a login took %v: not bounded by twice the dial timeout", d)
				}
				if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), host) {
					t.Fatalf("err = %v; want ErrAuth naming %s and %q", err, host, tc.want)
				}
				if !IsNetworkError(err) {
					t.Fatalf("a failed login must read as unreachable: %v", err)
				}
			}
			if n := strings.Count(buf.String(), "cannot authenticate"); n != 1 {
				t.Fatalf("logged %d times, want once:\n%s", n, buf.String())
			}
		})
	}
}

func TestKeyFileCredentialNeedsKey(t *testing.T) {
	if _, err := KeyFileCredential(&auth.KeyFile{}); err == nil {
		t.Fatal("no error for an empty key file")
	}
	if _, err := KeyFileCredential(nil); err == nil {
		t.Fatal("no error for nil")
	}
}

// BenchmarkDialLogin is the cost of a new member connection with and
// without the key file login (loopback, the real server conversation).
func BenchmarkDialLogin(b *testing.B) {
	srv := startSASL(b, "", "benchkey1")
	host := srv.ln.Addr().String()
	cred, err := KeyFileCredential(&auth.KeyFile{Keys: []string{"benchkey1"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts Options
	}{{"plain", Options{}}, {"keyFile", Options{Auth: cred}}} {
		b.Run(bc.name, func(b *testing.B) {
			p := NewPool(bc.opts)
			defer p.Close()
			for b.Loop() {
				c, err := p.Dial(context.Background(), host)
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Close()
			}
		})
	}
}
