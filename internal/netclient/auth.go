package netclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
)

// Member authentication (issue #13): a Pool with Options.Auth logs every
// new connection in with SCRAM-SHA-256 before handing it out, and checks
// the server's signature too, so a member without the key can neither
// read from nor pose as one. A failed login closes the connection and is
// an error wrapping ErrAuth (never a *mongoerr.Error: callers treat the
// peer as unreachable, as for a network error); it is logged at most once
// per host per authLogInterval.

// ErrAuth marks a failed member login.
var ErrAuth = errors.New("member authentication failed")

const (
	// authLogInterval spaces the log lines of a host's failed logins.
	authLogInterval = time.Minute
	// maxAuthSteps bounds the SASL round trips (SCRAM needs two or three).
	maxAuthSteps = 4
	// maxLoggedHosts bounds the log limiter's table.
	maxLoggedHosts = 1024
)

// Credential is what a pool's connections log in as. It is safe for
// concurrent use; the SCRAM client caches the derived keys per salt.
type Credential struct {
	User, DB string
	client   *scram.Client
	x509     bool // MONGODB-X509 with the pool's TLS certificate (x509.go)
	mu       struct {
		sync.Mutex
		logged map[string]time.Time // host -> last failure logged
	}
}

// NewCredential returns a SCRAM-SHA-256 credential for user@db.
func NewCredential(user, db, password string) (*Credential, error) {
	prepped, err := stringprep.SASLprep.Prepare(password)
	if err != nil {
		return nil, fmt.Errorf("netclient: SASLprep of the password: %w", err)
	}
	cl, err := scram.SHA256.NewClientUnprepped(user, prepped, "")
	if err != nil {
		return nil, fmt.Errorf("netclient: scram client: %w", err)
	}
	return &Credential{User: user, DB: db, client: cl}, nil
}

// KeyFileCredential logs in as __system@local with the key file's first
// key (the one this member authenticates with; others are only accepted).
func KeyFileCredential(kf *auth.KeyFile) (*Credential, error) {
	if kf == nil || len(kf.Keys) == 0 {
		return nil, errors.New("netclient: a key file credential needs a key")
	}
	return NewCredential(auth.SystemUser, auth.SystemDB, kf.Keys[0])
}

// login authenticates a fresh connection when the pool has a credential;
// on failure it closes c.
func (p *Pool) login(ctx context.Context, c *Conn) (*Conn, error) {
	cred := p.opts.Auth
	if cred == nil {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*p.opts.DialTimeout+maxAuthSteps*c.latency)
	defer cancel()
	if err := cred.authenticate(ctx, c); err != nil {
		_ = c.Close()
		err = fmt.Errorf("netclient: %s: %w as %s@%s: %w", c.host, ErrAuth, cred.User, cred.DB, err)
		cred.logFailure(p.opts.Logger, c.host, err)
		return nil, err
	}
	return c, nil
}

// authenticate runs one SCRAM-SHA-256 conversation on c.
func (cr *Credential) authenticate(ctx context.Context, c *Conn) error {
	if cr.x509 {
		return authenticateX509(ctx, c)
	}
	conv := cr.client.NewConversation()
	out, err := conv.Step("")
	if err != nil {
		return fmt.Errorf("client-first: %w", err)
	}
	cmd := bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: auth.MechSHA256},
		{Key: "payload", Value: bson.Binary{Data: []byte(out)}}, {Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}}}
	for range maxAuthSteps {
		reply, err := c.Run(ctx, cr.DB, cmd)
		if err != nil {
			return err
		}
		payload, done, id, err := saslReply(reply)
		if err != nil {
			return err
		}
		if !conv.Done() {
			if out, err = conv.Step(string(payload)); err != nil {
				return fmt.Errorf("server's SCRAM message refused: %w", err)
			}
		}
		if done {
			if !conv.Valid() {
				return errors.New("the server ended the conversation before proving it knows the key")
			}
			return nil
		}
		cmd = bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: id}, {Key: "payload", Value: bson.Binary{Data: []byte(out)}}}
	}
	return fmt.Errorf("no result after %d SASL steps", maxAuthSteps)
}

// saslReply reads saslStart/saslContinue's payload, done and conversationId.
func saslReply(reply bson.D) (payload []byte, done bool, id any, err error) {
	v, _ := bsonx.Get(reply, "payload")
	switch p := v.(type) {
	case bson.Binary:
		payload = p.Data
	case string:
		payload = []byte(p)
	default:
		return nil, false, nil, errors.New("SASL reply without a payload")
	}
	d, _ := bsonx.Get(reply, "done")
	done, _ = d.(bool)
	id, _ = bsonx.Get(reply, "conversationId")
	return payload, done, id, nil
}

// logFailure logs err unless host's last failure was logged less than
// authLogInterval ago.
func (cr *Credential) logFailure(log *slog.Logger, host string, err error) {
	now := time.Now()
	cr.mu.Lock()
	if cr.mu.logged == nil || len(cr.mu.logged) >= maxLoggedHosts {
		cr.mu.logged = map[string]time.Time{}
	}
	last, seen := cr.mu.logged[host]
	quiet := seen && now.Sub(last) < authLogInterval
	if !quiet {
		cr.mu.logged[host] = now
	}
	cr.mu.Unlock()
	if !quiet {
		log.Warn("cannot authenticate to a member (further failures for this host are not logged for a minute)", "host", host, "err", err)
	}
}
