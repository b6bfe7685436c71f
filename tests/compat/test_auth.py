"""pymongo logs in to relaydb --auth (issue #13): the localhost exception
creates the first user, SCRAM-SHA-256 and SCRAM-SHA-1 logins through the
connection string, a wrong password, and an unauthenticated command."""

import stat

import pytest
from pymongo import MongoClient
from pymongo.errors import OperationFailure

from relaydb_proc import Server


@pytest.fixture
def auth_server(relaydb_bin, tmp_path):
    """A relaydb of this test's own started with --auth (through a wrapper
    script, as the shared Server class starts `serve` without options)."""
    wrapper = tmp_path / "relaydb-auth"
    wrapper.write_text(f'#!/bin/sh\nexec "{relaydb_bin}" "$@" --auth\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    srv = Server(str(wrapper), tmp_path)
    srv.start()
    yield srv
    srv.stop()


def login(srv, user, pwd, mech):
    uri = (f"mongodb://{user}:{pwd}@{srv.host}:{srv.port}/"
           f"?directConnection=true&authSource=admin&authMechanism={mech}")
    return MongoClient(uri, serverSelectionTimeoutMS=5000)


def test_pymongo_scram_login(auth_server):
    with MongoClient(auth_server.uri, serverSelectionTimeoutMS=5000) as anon:
        with pytest.raises(OperationFailure) as exc:
            anon.app.c.find_one()
        assert exc.value.code == 13
        anon.admin.command("createUser", "admin", pwd="pässword", roles=["root"])
        with pytest.raises(OperationFailure) as exc:
            anon.admin.command("createUser", "other", pwd="x", roles=[])
        assert exc.value.code == 13
    for mech in ("SCRAM-SHA-256", "SCRAM-SHA-1"):
        with login(auth_server, "admin", "pässword", mech) as c:
            c.app.c.insert_one({"mech": mech})
            status = c.admin.command("connectionStatus")
            assert status["authInfo"]["authenticatedUsers"] == [{"user": "admin", "db": "admin"}]
        with login(auth_server, "admin", "wrong", mech) as c:
            with pytest.raises(OperationFailure) as exc:
                c.admin.command("ping")
            assert exc.value.code == 18
    with login(auth_server, "admin", "pässword", "SCRAM-SHA-256") as c:
        assert c.app.c.count_documents({}) == 2
        users = c.admin.command("usersInfo", "admin")["users"]
        assert users[0]["mechanisms"] == ["SCRAM-SHA-1", "SCRAM-SHA-256"]
        assert "credentials" not in users[0]
