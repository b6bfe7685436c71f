package tlsconf

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
)

// FuzzSubjectName: any DER bytes as a certificate's subject format
// without panicking (or fail to parse); attribute values, whatever they
// hold, cannot forge another attribute: a subject of O=org and CN=cn
// formats as exactly two attributes (one unescaped ',' and no unescaped
// '+'), and its member identity is the O attribute alone.
func FuzzSubjectName(f *testing.F) {
	f.Add([]byte{0x30, 0x00}, "client", "relaydb")
	f.Add([]byte{0x30, 0x03, 0x31, 0x01, 0x00}, "a,O=admin", "x+CN=y")
	f.Add([]byte{0xff}, " #lead", "trail ")
	f.Add([]byte{}, "back\\slash\"quote", "\x00\x1f\x7f")
	f.Fuzz(func(t *testing.T, raw []byte, cn, org string) {
		cert := &x509.Certificate{RawSubject: raw}
		if name, err := SubjectName(cert); err == nil {
			_ = MemberIdentity(cert)
			_ = name
		}
		seq := pkix.RDNSequence{
			{{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: org}},
			{{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: cn}},
		}
		name := NameString(seq)
		if commas, pluses := unescaped(name, ','), unescaped(name, '+'); commas != 1 || pluses != 0 {
			t.Fatalf("%q formats with %d separators and %d '+' (cn %q, o %q)", name, commas, pluses, cn, org)
		}
		der, err := asn1.Marshal(seq)
		if err != nil {
			return // not a printable/UTF-8 string asn1 accepts
		}
		want := NameString(pkix.RDNSequence{seq[0]})
		if got := MemberIdentity(&x509.Certificate{RawSubject: der}); got != want {
			t.Fatalf("member identity %q, want %q", got, want)
		}
	})
}

// unescaped counts c in s outside backslash escapes.
func unescaped(s string, c byte) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case c:
			n++
		}
	}
	return n
}
