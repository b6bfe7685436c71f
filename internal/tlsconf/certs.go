package tlsconf

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// DefaultValidity is how long generated certificates are valid.
const DefaultValidity = 365 * 24 * time.Hour

// CA is a local certificate authority (ECDSA P-256) that signs member and
// client certificates, for tests and `relaydb cluster up --tls`.
type CA struct {
	Cert *x509.Certificate
	key  crypto.Signer
}

// Request describes a certificate to issue.
type Request struct {
	Subject pkix.Name
	// Hosts are the DNS names and IP addresses a server certificate is
	// valid for (its subject alternative names).
	Hosts []string
	// Server and Client set the extended key usages (both for a member,
	// which accepts and opens connections).
	Server, Client bool
	// Validity defaults to DefaultValidity; NotBefore is an hour ago.
	Validity time.Duration
	// NotAfter, when set, overrides Validity (tests of expired ones).
	NotAfter time.Time
}

// NewCA returns a self-signed CA named commonName.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: CA key: %w", err)
	}
	tmpl, err := template(pkix.Name{CommonName: commonName, Organization: []string{"relaydb"}}, DefaultValidity)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: self-sign CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: parse CA: %w", err)
	}
	return &CA{Cert: cert, key: key}, nil
}

// CertPEM is the CA certificate in PEM (a CAFile).
func (ca *CA) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})
}

// Issue signs a new certificate and returns it followed by its PKCS#8
// private key, in PEM: the content of a certificateKeyFile (and of a Go
// driver's or pymongo's tlsCertificateKeyFile).
func (ca *CA) Issue(req Request) ([]byte, error) {
	if !req.Server && !req.Client {
		return nil, errors.New("tlsconf: a certificate needs Server or Client usage")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: key: %w", err)
	}
	tmpl, err := template(req.Subject, req.Validity)
	if err != nil {
		return nil, err
	}
	if !req.NotAfter.IsZero() {
		tmpl.NotAfter = req.NotAfter
		if nb := req.NotAfter.Add(-time.Hour); nb.Before(tmpl.NotBefore) {
			tmpl.NotBefore = nb
		}
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if req.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if req.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	for _, h := range req.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: sign %s: %w", req.Subject, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("tlsconf: encode key: %w", err)
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...), nil
}

func template(subject pkix.Name, validity time.Duration) (*x509.Certificate, error) {
	if validity <= 0 {
		validity = DefaultValidity
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("tlsconf: serial: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{SerialNumber: serial, Subject: subject,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity)}, nil
}
