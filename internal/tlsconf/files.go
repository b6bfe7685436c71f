package tlsconf

import (
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
)

// Subjects of the certificates WriteCluster generates. Members share O and
// OU (x.509 member authentication recognises a member by O, OU and DC);
// clients have another OU, so a client certificate never passes for one.
var (
	MemberSubject = pkix.Name{Organization: []string{"relaydb"}, OrganizationalUnit: []string{"members"}, CommonName: "member"}
	ClientSubject = pkix.Name{Organization: []string{"relaydb"}, OrganizationalUnit: []string{"clients"}, CommonName: "client"}
)

// Files are the paths WriteCluster wrote.
type Files struct {
	CAFile     string // the CA certificate: --tlsCAFile, the driver's tlsCAFile
	MemberFile string // every member's --tlsCertificateKeyFile
	ClientFile string // a client's tlsCertificateKeyFile
	// ClientUser is the client certificate's subject as MONGODB-X509's user
	// name: create it with createUser on $external.
	ClientUser string
}

// WriteCluster generates a CA, one member certificate valid for hosts
// (plus localhost, 127.0.0.1 and ::1) and one client certificate, and
// writes ca.pem, member.pem and client.pem (mode 0600) into dir.
func WriteCluster(dir string, hosts []string) (Files, error) {
	ca, err := NewCA("relaydb local CA")
	if err != nil {
		return Files{}, err
	}
	member, err := ca.Issue(Request{Subject: MemberSubject, Server: true, Client: true,
		Hosts: append([]string{"localhost", "127.0.0.1", "::1"}, hosts...)})
	if err != nil {
		return Files{}, err
	}
	client, err := ca.Issue(Request{Subject: ClientSubject, Client: true})
	if err != nil {
		return Files{}, err
	}
	f := Files{CAFile: filepath.Join(dir, "ca.pem"), MemberFile: filepath.Join(dir, "member.pem"),
		ClientFile: filepath.Join(dir, "client.pem"), ClientUser: NameString(ClientSubject.ToRDNSequence())}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, fmt.Errorf("tlsconf: %w", err)
	}
	for path, data := range map[string][]byte{f.CAFile: ca.CertPEM(), f.MemberFile: member, f.ClientFile: client} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return Files{}, fmt.Errorf("tlsconf: %w", err)
		}
	}
	return f, nil
}
