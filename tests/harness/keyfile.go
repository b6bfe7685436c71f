package harness

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// WriteKeyFile writes a member key file (mode 0600) holding key, or a new
// random key when key is "", in a temporary directory of t and returns
// its path and key. Start members with WithArgs("--keyFile", path).
func WriteKeyFile(t testing.TB, key string) (path, k string) {
	t.Helper()
	if key == "" {
		b := make([]byte, 48)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		key = base64.StdEncoding.EncodeToString(b)
	}
	path = filepath.Join(t.TempDir(), "keyfile")
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		t.Fatalf("harness: write key file: %v", err)
	}
	return path, key
}

// SystemURI is a direct connection string to host logged in as the
// internal user __system@local with a member key (as members log in to
// each other).
func SystemURI(host, key string) string {
	return fmt.Sprintf("mongodb://__system:%s@%s/?directConnection=true&authSource=local&serverSelectionTimeoutMS=3000",
		url.QueryEscape(key), host)
}
