package auth

import (
	"crypto/rand"
	"fmt"

	"github.com/xdg-go/scram"
)

// SystemCredentials derives __system@local's credentials from the keys of
// k, as MongoDB: the key is the password (SCRAM-SHA-1 through MongoDB's
// digest md5("__system:mongo:<key>")). The first key's are returned with
// the others' in Others; every key's credentials of one mechanism share a
// salt and iteration count, so a conversation can try each key against
// the one proof the client sends (key rotation).
func (k *KeyFile) SystemCredentials() (Credentials, error) {
	if len(k.Keys) == 0 {
		return Credentials{}, fmt.Errorf("key file %s holds no key", k.Path)
	}
	all, err := k.deriveAll()
	if err != nil {
		return Credentials{}, fmt.Errorf("key file %s: deriving __system credentials: %w", k.Path, err)
	}
	c := all[0]
	c.Others = all[1:]
	return c, nil
}

func (k *KeyFile) deriveAll() ([]Credentials, error) {
	salt1, salt256 := make([]byte, saltLenSHA1), make([]byte, saltLenSHA256)
	if _, err := rand.Read(salt1); err != nil {
		return nil, fmt.Errorf("salt: %w", err)
	}
	if _, err := rand.Read(salt256); err != nil {
		return nil, fmt.Errorf("salt: %w", err)
	}
	out := make([]Credentials, len(k.Keys))
	for i, key := range k.Keys {
		c1, err := deriveSalted(scram.SHA1, SystemUser, MongoPasswordDigest(SystemUser, key), salt1, DefaultItersSHA1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", MechSHA1, err)
		}
		// A key is base64 (ASCII without spaces or controls): SASLprep
		// leaves it unchanged.
		c256, err := deriveSalted(scram.SHA256, SystemUser, key, salt256, DefaultItersSHA256)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", MechSHA256, err)
		}
		out[i] = Credentials{SHA1: c1, SHA256: c256}
	}
	return out, nil
}

// IsSystemUser reports whether user@db is the internal user.
func IsSystemUser(db, user string) bool { return db == SystemDB && user == SystemUser }
