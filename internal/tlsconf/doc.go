// Package tlsconf builds the *tls.Config values of relaydb's TLS modes
// (net.tls.* / --tls*, as mongod's) and generates a local CA with member
// and client certificates (tests and `relaydb cluster up --tls`).
//
// Invariants:
//   - Only Go's crypto/tls and crypto/x509: no hand-written cryptography.
//   - TLS 1.2 is the oldest version ever negotiated (TLS 1.0 and 1.1 are
//     always off, whatever disabledProtocols says).
//   - A server config built here verifies client certificates against
//     CAFile: required unless allowConnectionsWithoutCertificates, never
//     verified when allowInvalidCertificates (then a certificate only opens
//     the connection and is not enough for MONGODB-X509, as mongod).
//   - An outgoing (member/router) config verifies the peer's chain against
//     clusterCAFile or CAFile and its host name unless
//     allowInvalidHostnames; only preferTLS and requireTLS have one
//     (allowTLS keeps outgoing connections plain, as mongod).
//   - Subject names are formatted as MongoDB prints them (RFC 2253, last
//     RDN first): the user name of MONGODB-X509 (SubjectName).
//
// TODO(#14): encrypted private keys (certificateKeyFilePassword), the
// system CA store (tlsUseSystemCA), CRLFile/OCSP, FIPS mode and
// certificate rotation without a restart (rotateCertificates) are refused
// or missing.
package tlsconf
