package auth

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseKeys: a key file's contents, whatever they are, parse without
// panicking into 1..maxKeys keys of allowed length and characters, the
// same way twice; anything else is an error.
func FuzzParseKeys(f *testing.F) {
	f.Add([]byte("c2VjcmV0a2V5c2VjcmV0a2V5\n"))
	f.Add([]byte("- abcdefghij0123\n- klmnopqrst4567\n"))
	f.Add([]byte("'quoted key value 123'"))
	f.Add([]byte("- [nested]\n"))
	f.Add([]byte("a: b\n"))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseKeys(data)
		if err != nil {
			return
		}
		if len(keys) == 0 || len(keys) > maxKeys {
			t.Fatalf("%d keys from %q", len(keys), data)
		}
		for _, k := range keys {
			if len(k) < minKeyLen || len(k) > maxKeyLen || strings.IndexFunc(k, func(r rune) bool { return !isBase64Char(r) }) >= 0 {
				t.Fatalf("bad key %q from %q", k, data)
			}
		}
		again, err := ParseKeys(data)
		if err != nil || !slices.Equal(keys, again) {
			t.Fatalf("not deterministic: %q vs %q, %v", keys, again, err)
		}
	})
}
