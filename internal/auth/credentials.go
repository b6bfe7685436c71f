package auth

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Mechanism names as MongoDB spells them.
const (
	MechSHA1   = "SCRAM-SHA-1"
	MechSHA256 = "SCRAM-SHA-256"
)

// MongoDB's default iteration counts and salt lengths.
const (
	DefaultItersSHA1   = 10000
	DefaultItersSHA256 = 15000
	saltLenSHA1        = 16
	saltLenSHA256      = 28
	// maxIters bounds the iteration count accepted from stored documents.
	maxIters = 10_000_000
)

// SCRAMCredential is one mechanism's stored credential; Salt, StoredKey and
// ServerKey are base64 as in admin.system.users.
type SCRAMCredential struct {
	IterationCount int
	Salt           string
	StoredKey      string
	ServerKey      string
}

// Credentials holds a user's credentials per mechanism (nil when absent).
type Credentials struct {
	SHA1   *SCRAMCredential
	SHA256 *SCRAMCredential
	// Others are further credentials a login may match (key rotation,
	// rotation.go); each mechanism's share the salt and iteration count of
	// SHA1/SHA256. Never stored.
	Others []Credentials
}

// Mechanisms returns the mechanism names the credentials support.
func (c Credentials) Mechanisms() []string {
	var out []string
	if c.SHA1 != nil {
		out = append(out, MechSHA1)
	}
	if c.SHA256 != nil {
		out = append(out, MechSHA256)
	}
	return out
}

// MongoPasswordDigest is MongoDB's SCRAM-SHA-1 password: hex(md5("user:mongo:pass")).
func MongoPasswordDigest(user, password string) string {
	sum := md5.Sum([]byte(user + ":mongo:" + password))
	return hex.EncodeToString(sum[:])
}

// NewCredentials derives salted credentials for the given mechanisms
// (both when mechs is empty).
func NewCredentials(user, password string, mechs []string) (Credentials, error) {
	if user == "" || password == "" {
		return Credentials{}, errors.New("user and password must not be empty")
	}
	if len(mechs) == 0 {
		mechs = []string{MechSHA1, MechSHA256}
	}
	var c Credentials
	for _, m := range mechs {
		switch m {
		case MechSHA1:
			cred, err := derive(scram.SHA1, user, MongoPasswordDigest(user, password), saltLenSHA1, DefaultItersSHA1)
			if err != nil {
				return Credentials{}, fmt.Errorf("%s: %w", m, err)
			}
			c.SHA1 = cred
		case MechSHA256:
			prepped, err := stringprep.SASLprep.Prepare(password)
			if err != nil {
				return Credentials{}, fmt.Errorf("%s: SASLprep of the password: %w", m, err)
			}
			cred, err := derive(scram.SHA256, user, prepped, saltLenSHA256, DefaultItersSHA256)
			if err != nil {
				return Credentials{}, fmt.Errorf("%s: %w", m, err)
			}
			c.SHA256 = cred
		default:
			return Credentials{}, fmt.Errorf("%w: %q", ErrMechanismUnavailable, m)
		}
	}
	return c, nil
}

func derive(h scram.HashGeneratorFcn, user, pass string, saltLen, iters int) (*SCRAMCredential, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, fmt.Errorf("salt: %w", err)
	}
	return deriveSalted(h, user, pass, salt, iters)
}

// deriveSalted derives a credential with the given salt.
func deriveSalted(h scram.HashGeneratorFcn, user, pass string, salt []byte, iters int) (*SCRAMCredential, error) {
	cl, err := h.NewClientUnprepped(user, pass, "")
	if err != nil {
		return nil, fmt.Errorf("scram client: %w", err)
	}
	sc, err := cl.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: iters})
	if err != nil {
		return nil, fmt.Errorf("deriving keys: %w", err)
	}
	enc := base64.StdEncoding.EncodeToString
	return &SCRAMCredential{IterationCount: iters, Salt: enc(salt), StoredKey: enc(sc.StoredKey), ServerKey: enc(sc.ServerKey)}, nil
}

// BSON renders the credentials as admin.system.users' "credentials" field.
func (c Credentials) BSON() bson.D {
	d := bson.D{}
	add := func(name string, s *SCRAMCredential) {
		if s != nil {
			d = append(d, bson.E{Key: name, Value: bson.D{
				{Key: "iterationCount", Value: int32(s.IterationCount)},
				{Key: "salt", Value: s.Salt},
				{Key: "storedKey", Value: s.StoredKey},
				{Key: "serverKey", Value: s.ServerKey},
			}})
		}
	}
	add(MechSHA1, c.SHA1)
	add(MechSHA256, c.SHA256)
	return d
}

// ParseCredentials reads admin.system.users' "credentials" document;
// unknown mechanisms are ignored.
func ParseCredentials(raw bson.Raw) (Credentials, error) {
	var c Credentials
	for _, m := range []string{MechSHA1, MechSHA256} {
		v, err := raw.LookupErr(m)
		if err != nil {
			continue
		}
		doc, ok := v.DocumentOK()
		if !ok {
			return Credentials{}, fmt.Errorf("credentials.%s is not a document", m)
		}
		s, err := parseSCRAM(doc)
		if err != nil {
			return Credentials{}, fmt.Errorf("credentials.%s: %w", m, err)
		}
		if m == MechSHA1 {
			c.SHA1 = s
		} else {
			c.SHA256 = s
		}
	}
	return c, nil
}

func parseSCRAM(doc bson.Raw) (*SCRAMCredential, error) {
	s := &SCRAMCredential{}
	it, ok := doc.Lookup("iterationCount").AsInt64OK()
	if !ok || it < 1 || it > maxIters {
		return nil, errors.New("bad iterationCount")
	}
	s.IterationCount = int(it)
	for _, f := range []struct {
		name string
		dst  *string
	}{{"salt", &s.Salt}, {"storedKey", &s.StoredKey}, {"serverKey", &s.ServerKey}} {
		str, ok := doc.Lookup(f.name).StringValueOK()
		if !ok {
			return nil, fmt.Errorf("%s missing or not a string", f.name)
		}
		if _, err := base64.StdEncoding.DecodeString(str); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = str
	}
	return s, nil
}

// stored converts to the library's form (decoded bytes).
func (s *SCRAMCredential) stored() (scram.StoredCredentials, error) {
	dec := base64.StdEncoding.DecodeString
	salt, err1 := dec(s.Salt)
	sk, err2 := dec(s.StoredKey)
	srv, err3 := dec(s.ServerKey)
	if err := errors.Join(err1, err2, err3); err != nil {
		return scram.StoredCredentials{}, fmt.Errorf("stored credential: %w", err)
	}
	return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(salt), Iters: s.IterationCount}, StoredKey: sk, ServerKey: srv}, nil
}
