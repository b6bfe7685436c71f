"""pymongo with user-defined roles on relaydb --auth (issue #13): the role
commands as drivers and tools send them, a role's privileges on an open
connection, inheritance, rolesInfo/usersInfo showPrivileges and MongoDB's
error codes."""

import stat

import pytest
from pymongo import MongoClient
from pymongo.errors import OperationFailure

from relaydb_proc import Server


@pytest.fixture
def roles_server(relaydb_bin, tmp_path):
    """A relaydb of this test's own with --auth and a root user."""
    wrapper = tmp_path / "relaydb-auth"
    wrapper.write_text(f'#!/bin/sh\nexec "{relaydb_bin}" "$@" --auth\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    srv = Server(str(wrapper), tmp_path)
    srv.start()
    with MongoClient(srv.uri, serverSelectionTimeoutMS=5000) as anon:
        anon.admin.command("createUser", "root", pwd="rootpw", roles=["root"])
    yield srv
    srv.stop()


def login(srv, user, pwd):
    uri = (f"mongodb://{user}:{pwd}@{srv.host}:{srv.port}/"
           f"?directConnection=true&authSource=admin")
    return MongoClient(uri, serverSelectionTimeoutMS=5000)


def code_of(fn):
    with pytest.raises(OperationFailure) as exc:
        fn()
    return exc.value.code


def find_c(db):
    return {"resource": {"db": db, "collection": "c"}, "actions": ["find"]}


def test_pymongo_user_defined_role(roles_server):
    with login(roles_server, "root", "rootpw") as root:
        root.app.c.insert_one({"_id": 1})
        root.app.d.insert_one({"_id": 1})
        root.app.command("createRole", "findC", privileges=[find_c("app")], roles=[])
        root.app.command("createRole", "writer", privileges=[
            {"resource": {"db": "app", "collection": "d"}, "actions": ["insert", "changeStream"]}], roles=["findC"])
        root.admin.command("createUser", "u", pwd="p", roles=[{"role": "writer", "db": "app"}])
        with login(roles_server, "u", "p") as u:
            assert u.app.c.find_one() == {"_id": 1}
            u.app.d.insert_one({"_id": 2})
            assert code_of(lambda: u.app.d.find_one()) == 13
            assert code_of(lambda: u.other.c.find_one()) == 13
            root.app.command("revokePrivilegesFromRole", "findC", privileges=[find_c("app")])
            assert code_of(lambda: u.app.c.find_one()) == 13
            root.app.command("grantPrivilegesToRole", "findC", privileges=[find_c("app")])
            assert u.app.c.find_one() == {"_id": 1}
            assert u.list_database_names() == ["app"]
            assert u.app.list_collection_names(authorizedCollections=True) == ["c", "d"]
        info = root.app.command("rolesInfo", "writer", showPrivileges=True)["roles"][0]
        assert info["isBuiltin"] is False
        assert info["inheritedRoles"] == [{"role": "findC", "db": "app"}]
        assert {"resource": {"db": "app", "collection": "d"}, "actions": ["changeStream", "insert"]} in info["privileges"]
        user = root.admin.command("usersInfo", "u", showPrivileges=True)["users"][0]
        assert [r["role"] for r in user["inheritedRoles"]] == ["writer", "findC"]
        root.app.command("dropRole", "writer", writeConcern={"w": 1, "j": True})
        assert root.admin.command("usersInfo", "u")["users"][0]["roles"] == []


def test_pymongo_role_errors(roles_server):
    with login(roles_server, "root", "rootpw") as root:
        root.app.command("createRole", "r1", privileges=[], roles=[])
        assert code_of(lambda: root.app.command("createRole", "r1", privileges=[], roles=[])) == 51002
        assert code_of(lambda: root.app.command("createRole", "read", privileges=[], roles=[])) == 2
        assert code_of(lambda: root.app.command("createRole", "r2", privileges=[
            {"resource": {"db": "app", "collection": ""}, "actions": ["fakeAction"]}], roles=[])) == 2
        assert code_of(lambda: root.app.command("createRole", "r2", privileges=[], roles=["nope"])) == 31
        assert code_of(lambda: root.app.command("grantRolesToRole", "r1", roles=["r1"])) == 49
        assert code_of(lambda: root.app.command("dropRole", "nope")) == 31
        assert code_of(lambda: root.app.command("createRole", "r3", privileges=[], roles=[],
                                                writeConcern={"w": 2})) != 0
        assert root.app.command("rolesInfo", "r3")["roles"] == []
        root.admin.command("createUser", "plain", pwd="p", roles=[{"role": "readWrite", "db": "app"}])
        with login(roles_server, "plain", "p") as plain:
            assert code_of(lambda: plain.app.command("createRole", "x", privileges=[], roles=[])) == 13
            assert code_of(lambda: plain.app.command("rolesInfo", 1)) == 13
