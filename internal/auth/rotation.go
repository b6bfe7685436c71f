package auth

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/xdg-go/scram"
)

// Key rotation: a user (the internal __system user of a key file with
// several keys) may have further accepted credentials (Credentials.Others).
// The conversation runs one library server conversation per credential
// with the same nonce; as the credentials share salt and iteration count,
// every one sends the client the same server-first message, and the proof
// is accepted if any of them verifies it.

// forMech returns the credential for mech, or nil.
func (c Credentials) forMech(mech string) *SCRAMCredential {
	if mech == MechSHA1 {
		return c.SHA1
	}
	return c.SHA256
}

func newNonce() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func (c *Conversation) nonceGen() string { return c.nonce }

// startAlternates runs the client-first message through a conversation per
// alternate credential; each must answer as the first one did.
func (c *Conversation) startAlternates(clientFirst string) error {
	for _, st := range c.alts {
		srv, err := c.h.NewServer(func(string) (scram.StoredCredentials, error) { return st, nil })
		if err != nil {
			return fmt.Errorf("scram server: %w", err)
		}
		sc := srv.WithNonceGenerator(c.nonceGen).NewConversation()
		if _, err := sc.Step(clientFirst); err != nil {
			return fmt.Errorf("alternate credential: %w", err)
		}
		c.altConvs = append(c.altConvs, sc)
	}
	return nil
}

// stepAlternates tries the client's proof against each alternate; first is
// the first credential's error, returned when none verifies it.
func (c *Conversation) stepAlternates(clientFinal string, first error) (string, error) {
	for _, sc := range c.altConvs {
		if reply, err := sc.Step(clientFinal); err == nil && sc.Valid() {
			return reply, nil
		}
	}
	return "", first
}

// altValid reports whether an alternate verified the proof.
func (c *Conversation) altValid() bool {
	for _, sc := range c.altConvs {
		if sc.Valid() {
			return true
		}
	}
	return false
}
