"""pymongo over TLS (issue #13): relaydb --tlsMode requireTLS with
certificates made by OpenSSL (not by relaydb's own generator), a
MONGODB-X509 login as the user named by the client certificate's subject,
and the refusals: a plain client, a client without a certificate, and
x509 for a subject that is no user."""

import stat
import subprocess

import pytest
from pymongo import MongoClient
from pymongo.errors import OperationFailure, PyMongoError, ServerSelectionTimeoutError

from relaydb_proc import Server

# scripts/test installs openssl (need_apt_packages); without it these tests fail, never skip.

CLIENT_SUBJECT = "CN=client,OU=clients,O=relaydb Test"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d):
    """A CA, a server certificate for 127.0.0.1/localhost and two client
    certificates, each a PEM with certificate and key."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/O=relaydb Test/CN=test CA", cwd=d)
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                               "extendedKeyUsage=serverAuth,clientAuth\n")
    (d / "client.cnf").write_text("extendedKeyUsage=clientAuth\n")
    for name, subj, ext in (("server", "/O=relaydb Test/OU=members/CN=localhost", "san.cnf"),
                            ("client", "/O=relaydb Test/OU=clients/CN=client", "client.cnf"),
                            ("stranger", "/O=relaydb Test/OU=clients/CN=stranger", "client.cnf")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subj, cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", f"{name}.crt", cwd=d)
        (d / f"{name}.pem").write_text((d / f"{name}.crt").read_text() + (d / f"{name}.key").read_text())
    return d


class TLSServer(Server):
    """A Server whose readiness ping (and uri) goes over TLS."""

    def __init__(self, binary, workdir, certs):
        super().__init__(binary, workdir)
        self.certs = certs

    @property
    def uri(self):
        return super().uri + f"&tls=true&tlsCAFile={self.certs / 'ca.pem'}&tlsCertificateKeyFile={self.certs / 'client.pem'}"


@pytest.fixture
def tls_server(relaydb_bin, tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    make_certs(certs)
    wrapper = tmp_path / "relaydb-tls"
    wrapper.write_text(f'#!/bin/sh\nexec "{relaydb_bin}" "$@" --auth --tlsMode requireTLS '
                       f'--tlsCertificateKeyFile "{certs / "server.pem"}" --tlsCAFile "{certs / "ca.pem"}" '
                       f'--tlsAllowConnectionsWithoutCertificates\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    srv = TLSServer(str(wrapper), tmp_path, certs)
    srv.start()
    yield srv
    srv.stop()


def tls_client(srv, cert=None, **kw):
    opts = dict(tls=True, tlsCAFile=str(srv.certs / "ca.pem"), serverSelectionTimeoutMS=3000)
    if cert:
        opts["tlsCertificateKeyFile"] = str(srv.certs / cert)
    opts.update(kw)
    return MongoClient(srv.host, srv.port, directConnection=True, **opts)


def test_pymongo_x509_login(tls_server):
    with tls_client(tls_server) as anon:
        anon.admin.command("createUser", "root", pwd="pw", roles=["root"])
    with tls_client(tls_server, username="root", password="pw", authSource="admin") as root:
        root["$external"].command("createUser", CLIENT_SUBJECT,
                                  roles=[{"role": "readWrite", "db": "app"}])
    with tls_client(tls_server, "client.pem", authMechanism="MONGODB-X509") as c:
        c.app.c.insert_one({"x": 1})
        assert c.app.c.count_documents({}) == 1
        status = c.admin.command("connectionStatus")
        assert status["authInfo"]["authenticatedUsers"] == [{"user": CLIENT_SUBJECT, "db": "$external"}]
        with pytest.raises(OperationFailure) as exc:
            c.other.c.insert_one({"x": 1})
        assert exc.value.code == 13
    # pymongo sends the user name when given: it must be the subject.
    with tls_client(tls_server, "client.pem", authMechanism="MONGODB-X509", username=CLIENT_SUBJECT) as c:
        c.app.c.find_one()
    with tls_client(tls_server, "client.pem", authMechanism="MONGODB-X509", username="CN=other") as c:
        with pytest.raises(OperationFailure) as exc:
            c.app.c.find_one()
        assert exc.value.code == 18
    with tls_client(tls_server, "stranger.pem", authMechanism="MONGODB-X509") as c:
        with pytest.raises(OperationFailure) as exc:
            c.app.c.find_one()
        assert exc.value.code == 18


def test_pymongo_tls_refusals(tls_server):
    with MongoClient(tls_server.host, tls_server.port, directConnection=True, serverSelectionTimeoutMS=1500) as plain:
        with pytest.raises(ServerSelectionTimeoutError):
            plain.admin.command("ping")
    assert "TLS is required" in tls_server.log_path.read_text()
    with tls_client(tls_server) as nocert:
        with pytest.raises(OperationFailure) as exc:
            nocert["$external"].command("authenticate", 1, mechanism="MONGODB-X509")
        assert exc.value.code == 18
        assert "No verified subject name available from client" in str(exc.value)
    with MongoClient(tls_server.host, tls_server.port, directConnection=True, tls=True,
                     tlsAllowInvalidCertificates=True, serverSelectionTimeoutMS=3000) as c:
        c.admin.command("ping")  # the server's certificate is not checked by this client
    with pytest.raises(PyMongoError):
        with MongoClient(tls_server.host, tls_server.port, directConnection=True, tls=True,
                         serverSelectionTimeoutMS=1500) as c:  # system CAs: the server is unknown
            c.admin.command("ping")
