package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseKeys(t *testing.T) {
	long := strings.Repeat("a", 1024)
	for _, tc := range []struct {
		name, in string
		want     []string
		err      string
	}{
		{"plain", "abcdef", []string{"abcdef"}, ""},
		{"whitespace ignored", "  ab cd\n\tef+/=\n", []string{"abcdef+/="}, ""},
		{"openssl lines", "QUJD\nREVG\nR0hJ\n", []string{"QUJDREVGR0hJ"}, ""},
		{"digits only (a YAML int)", "123456", []string{"123456"}, ""},
		{"yaml string", "'abcdefgh'", []string{"abcdefgh"}, ""},
		{"yaml sequence", "- abcdefgh\n- ijklmnop\n", []string{"abcdefgh", "ijklmnop"}, ""},
		{"1024 chars", long, []string{long}, ""},
		{"too short", "abcde", nil, "length 5"},
		{"too long", long + "b", nil, "length 1025"},
		{"empty", "", nil, "length 0"},
		{"bad char", "abcdef!", nil, "invalid character '!'"},
		{"sequence item short", "- abcdefgh\n- abc\n", nil, "length 3"},
		{"nested", "- [abcdefgh]\n", nil, "must hold strings"},
		{"empty sequence", "[]", nil, "no key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKeys([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestLoadKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok", "abcdefgh\n", 0o600)
	kf, err := LoadKeyFile(ok)
	if err != nil || len(kf.Keys) != 1 || kf.Keys[0] != "abcdefgh" {
		t.Fatalf("LoadKeyFile = %+v, %v", kf, err)
	}
	if _, err := LoadKeyFile(write("ro", "abcdefgh", 0o400)); err != nil {
		t.Fatalf("0400: %v", err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644} {
		p := write("open"+mode.String(), "abcdefgh", mode)
		if _, err := LoadKeyFile(p); err == nil || !strings.Contains(err.Error(), "permissions on "+p+" are too open") {
			t.Fatalf("mode %v: %v", mode, err)
		}
	}
	if _, err := LoadKeyFile(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file loaded")
	}
	if _, err := LoadKeyFile(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("directory: %v", err)
	}
	if _, err := LoadKeyFile(write("short", "abc", 0o600)); err == nil || !strings.Contains(err.Error(), "short") {
		t.Fatalf("short key: %v (want the path in the error)", err)
	}
}

// TestSystemLogin: __system logs in with any key of the file (rotation),
// with both mechanisms, and not with another key.
func TestSystemLogin(t *testing.T) {
	kf := &KeyFile{Path: "k", Keys: []string{"firstkey1", "secondkey2"}}
	creds, err := kf.SystemCredentials()
	if err != nil {
		t.Fatal(err)
	}
	lookup := lookupOf(map[string]Credentials{SystemUser: creds})
	for _, mech := range []string{MechSHA1, MechSHA256} {
		for _, key := range kf.Keys {
			if err := login(t, mech, SystemUser, key, lookup); err != nil {
				t.Errorf("%s with key %q: %v", mech, key, err)
			}
		}
		if err := login(t, mech, SystemUser, "otherkey3", lookup); err == nil {
			t.Errorf("%s with a foreign key succeeded", mech)
		}
	}
	one, err := (&KeyFile{Keys: []string{"otherkey3"}}).SystemCredentials()
	if err != nil {
		t.Fatal(err)
	}
	if err := login(t, MechSHA256, SystemUser, "firstkey1", lookupOf(map[string]Credentials{SystemUser: one})); err == nil {
		t.Error("a member with another key accepted ours")
	}
	if _, err := (&KeyFile{Path: "k"}).SystemCredentials(); err == nil {
		t.Error("no keys: no error")
	}
}
