package tlsconf

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
)

// shortNames are the attribute names MongoDB prints in a subject (others
// are printed as their dotted OID with the DER value in hex).
var shortNames = map[string]string{
	"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.9": "STREET",
	"2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.5": "serialNumber", "2.5.4.17": "postalCode",
	"0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
	"1.2.840.113549.1.9.1": "emailAddress",
}

// SubjectName is cert's subject as MongoDB formats it for MONGODB-X509
// user names: RFC 2253, the last RDN first ("CN=client,OU=clients,O=relaydb").
func SubjectName(cert *x509.Certificate) (string, error) {
	var seq pkix.RDNSequence
	rest, err := asn1.Unmarshal(cert.RawSubject, &seq)
	if err != nil || len(rest) > 0 {
		return "", fmt.Errorf("tlsconf: malformed certificate subject: %v", err)
	}
	return NameString(seq), nil
}

// NameString formats an RDN sequence as RFC 2253 (reversed, "+" within a
// multi-valued RDN, values escaped).
func NameString(seq pkix.RDNSequence) string {
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		for j, atv := range seq[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			writeAttr(&b, atv)
		}
	}
	return b.String()
}

func writeAttr(b *strings.Builder, atv pkix.AttributeTypeAndValue) {
	name, known := shortNames[atv.Type.String()]
	s, isString := atv.Value.(string)
	if !known || !isString {
		if !known {
			name = atv.Type.String()
		}
		der, _ := asn1.Marshal(atv.Value)
		b.WriteString(name + "=#" + hex.EncodeToString(der))
		return
	}
	b.WriteString(name + "=" + escapeValue(s))
}

// escapeValue escapes an attribute value as RFC 2253 section 2.4.
func escapeValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(`,+"\<>;`, c) >= 0,
			i == 0 && (c == '#' || c == ' '),
			i == len(s)-1 && c == ' ':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// MemberIdentity is the part of a subject that x.509 member authentication
// compares (MongoDB's rule): its O, OU and DC attributes, in order.
func MemberIdentity(cert *x509.Certificate) string {
	var seq pkix.RDNSequence
	if _, err := asn1.Unmarshal(cert.RawSubject, &seq); err != nil {
		return ""
	}
	var keep pkix.RDNSequence
	for _, rdn := range seq {
		var set pkix.RelativeDistinguishedNameSET
		for _, atv := range rdn {
			switch shortNames[atv.Type.String()] {
			case "O", "OU", "DC":
				set = append(set, atv)
			}
		}
		if len(set) > 0 {
			keep = append(keep, set)
		}
	}
	return NameString(keep)
}
