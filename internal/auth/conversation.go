package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/xdg-go/scram"
)

// MaxPayload bounds one SASL payload (MongoDB's own messages are < 1 KiB).
const MaxPayload = 8 << 10

// Errors a conversation returns; the command layer maps them to MongoDB's
// codes (AuthenticationFailed 18, MechanismUnavailable 334, ProtocolError 17).
var (
	ErrAuthFailed           = errors.New("Authentication failed.")
	ErrMechanismUnavailable = errors.New("mechanism unavailable")
	ErrProtocol             = errors.New("SASL protocol error")
	// ErrUserNotFound is what a Lookup returns for a missing user.
	ErrUserNotFound = errors.New("user not found")
)

// Lookup returns the credentials of user (its SCRAM username, i.e. the user
// name without database), or ErrUserNotFound.
type Lookup func(user string) (Credentials, error)

// Conversation is one server-side SASL conversation. Not safe for
// concurrent use; the command layer holds it per connection.
type Conversation struct {
	mech      string
	lookup    Lookup
	sc        *scram.ServerConversation
	lookupErr error
	// alternates are further accepted credentials of the user (key
	// rotation: Credentials.Others), tried when the proof fails against
	// the first; they share its salt, iterations and nonce.
	h         scram.HashGeneratorFcn
	nonce     string
	alts      []scram.StoredCredentials
	altConvs  []*scram.ServerConversation
	steps     int
	finalSent bool
	done      bool
}

// NewConversation starts a conversation for mech.
func NewConversation(mech string, lookup Lookup) (*Conversation, error) {
	c := &Conversation{mech: mech, lookup: lookup}
	var h scram.HashGeneratorFcn
	switch mech {
	case MechSHA1:
		h = scram.SHA1
	case MechSHA256:
		h = scram.SHA256
	default:
		return nil, fmt.Errorf("%w: Received authentication for mechanism %s which is unknown or not enabled", ErrMechanismUnavailable, mech)
	}
	c.h, c.nonce = h, newNonce()
	srv, err := h.NewServer(c.credential)
	if err != nil {
		return nil, fmt.Errorf("scram server: %w", err)
	}
	c.sc = srv.WithNonceGenerator(c.nonceGen).NewConversation()
	return c, nil
}

// Mechanism returns the conversation's mechanism.
func (c *Conversation) Mechanism() string { return c.mech }

// User returns the SCRAM username the client sent (empty before step 1).
func (c *Conversation) User() string {
	u, _ := decodeName(c.sc.Username())
	return u
}

// decodeName undoes RFC 5802's saslname escaping (=2C is ",", =3D is "=");
// the library hands the server the escaped form.
func decodeName(s string) (string, error) {
	if !strings.Contains(s, "=") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "=2C"):
			b.WriteByte(',')
		case strings.HasPrefix(s[i:], "=3D"):
			b.WriteByte('=')
		default:
			return "", fmt.Errorf("%w: bad escape in user name", ErrProtocol)
		}
		i += 2
	}
	return b.String(), nil
}

// Done reports whether the conversation succeeded and is complete.
func (c *Conversation) Done() bool { return c.done }

// ProofVerified reports whether the client's proof was verified (the
// server-final message has been produced); with skipEmptyExchange the
// command layer treats this as done.
func (c *Conversation) ProofVerified() bool { return c.finalSent }

// Step consumes one client payload and returns the server's reply. After
// the proof is verified, one more empty step completes the conversation.
func (c *Conversation) Step(payload []byte) ([]byte, error) {
	if c.done {
		return nil, fmt.Errorf("%w: conversation already completed", ErrProtocol)
	}
	if len(payload) > MaxPayload {
		return nil, fmt.Errorf("%w: payload of %d bytes exceeds %d", ErrProtocol, len(payload), MaxPayload)
	}
	if c.finalSent {
		if len(payload) != 0 {
			return nil, fmt.Errorf("%w: unexpected payload after the server-final message", ErrProtocol)
		}
		c.done = true
		return []byte{}, nil
	}
	if !utf8.Valid(payload) {
		return nil, ErrAuthFailed
	}
	c.steps++
	reply, err := c.sc.Step(string(payload))
	if c.steps == 1 && err == nil {
		err = c.startAlternates(string(payload))
	}
	if c.steps == 2 && (err != nil || !c.sc.Valid()) && len(c.altConvs) > 0 {
		reply, err = c.stepAlternates(string(payload), err)
	}
	if err != nil {
		return nil, c.fail(err)
	}
	if c.steps == 2 {
		if !(c.sc.Valid() || c.altValid()) || c.lookupErr != nil {
			return nil, ErrAuthFailed
		}
		c.finalSent = true
	}
	return []byte(reply), nil
}

// fail hides the reason from the client (MongoDB answers "Authentication
// failed." whatever went wrong) but keeps it for the server's log.
func (c *Conversation) fail(err error) error {
	return fmt.Errorf("%w (%s: %v)", ErrAuthFailed, c.mech, err)
}

// credential is the library's lookup: a real user's credential, or a decoy.
func (c *Conversation) credential(escaped string) (scram.StoredCredentials, error) {
	user, err := decodeName(escaped)
	if err != nil {
		c.lookupErr = err
		return decoy(c.mech, escaped), nil
	}
	creds, err := c.lookup(user)
	var s *SCRAMCredential
	if err == nil {
		s = creds.forMech(c.mech)
		c.alts = nil
		for _, o := range creds.Others {
			if a := o.forMech(c.mech); a != nil {
				if st, err := a.stored(); err == nil {
					c.alts = append(c.alts, st)
				}
			}
		}
	}
	if err == nil && s == nil {
		// As MongoDB: fail at once, so a driver's speculative attempt with
		// the default mechanism falls back to one in saslSupportedMechs.
		return scram.StoredCredentials{}, fmt.Errorf("user %q has no %s credentials", user, c.mech)
	}
	if err != nil {
		c.lookupErr = err
		return decoy(c.mech, user), nil
	}
	sc, err := s.stored()
	if err != nil {
		c.lookupErr = err
		return decoy(c.mech, user), nil
	}
	return sc, nil
}

var decoySecret = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}()

// decoy is a stable per-process credential for a user that does not exist:
// same salt on every attempt, default iterations, keys nobody can match.
func decoy(mech, user string) scram.StoredCredentials {
	mac := hmac.New(sha256.New, decoySecret)
	mac.Write([]byte(mech + "\x00" + user))
	sum := mac.Sum(nil)
	n, iters := saltLenSHA256, DefaultItersSHA256
	if mech == MechSHA1 {
		n, iters = saltLenSHA1, DefaultItersSHA1
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(sum[:n]), Iters: iters}, StoredKey: key, ServerKey: key}
}
