package auth

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"gopkg.in/yaml.v3"
)

// Member authentication with a key file (mongod's --keyFile): every member
// of a deployment holds the same secret and logs in to the others as the
// internal user __system@local with it as the password.
const (
	// SystemUser and SystemDB name the internal user, as MongoDB.
	SystemUser = "__system"
	SystemDB   = "local"

	minKeyLen = 6
	maxKeyLen = 1024
	// maxKeyFileBytes bounds what LoadKeyFile reads (a few keys of 1024
	// characters with their whitespace).
	maxKeyFileBytes = 64 << 10
	// maxKeys bounds a rotation list.
	maxKeys = 16
)

// KeyFile is a loaded key file: its keys in file order. Keys[0]
// authenticates this member to others; any key is accepted from them
// (key rotation, as MongoDB's YAML key files).
type KeyFile struct {
	Path string
	Keys []string
}

// LoadKeyFile reads and validates a key file as mongod does: it must not
// be readable by group or others (POSIX), and holds one key, or a YAML
// sequence of keys, each 6 to 1024 base64 characters once whitespace is
// removed.
func LoadKeyFile(path string) (*KeyFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("error getting file %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("key file %s is a directory", path)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("permissions on %s are too open", path)
	}
	if st.Size() > maxKeyFileBytes {
		return nil, fmt.Errorf("key file %s is %d bytes; at most %d", path, st.Size(), maxKeyFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading key file %s: %w", path, err)
	}
	keys, err := ParseKeys(data)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return &KeyFile{Path: path, Keys: keys}, nil
}

// ParseKeys returns the keys of a key file's contents: one key (plain text
// or a YAML string) or a YAML sequence of keys, whitespace removed.
func ParseKeys(data []byte) ([]string, error) {
	raw := []string{string(data)}
	var n yaml.Node
	if yaml.Unmarshal(data, &n) == nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		switch doc := n.Content[0]; doc.Kind {
		case yaml.ScalarNode:
			raw = []string{doc.Value}
		case yaml.SequenceNode:
			raw = raw[:0]
			for _, item := range doc.Content {
				if item.Kind != yaml.ScalarNode {
					return nil, errors.New("a key file sequence must hold strings")
				}
				raw = append(raw, item.Value)
			}
		}
	}
	if len(raw) == 0 {
		return nil, errors.New("the key file holds no key")
	}
	if len(raw) > maxKeys {
		return nil, fmt.Errorf("the key file holds %d keys; at most %d", len(raw), maxKeys)
	}
	keys := make([]string, len(raw))
	for i, r := range raw {
		k, err := cleanKey(r)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

// cleanKey removes whitespace and checks the characters and length.
func cleanKey(s string) (string, error) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
		case isBase64Char(r):
			b.WriteRune(r)
		default:
			return "", fmt.Errorf("invalid character %q in the key: only base64 characters are allowed", r)
		}
	}
	k := b.String()
	if len(k) < minKeyLen || len(k) > maxKeyLen {
		return "", fmt.Errorf("the security key has length %d, must be between %d and %d characters", len(k), minKeyLen, maxKeyLen)
	}
	return k, nil
}

func isBase64Char(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '='
}
