"""The wire protocol with raw sockets: malformed frames, checksums,
moreToCome (w:0). A bad client may lose its connection, but the server
keeps serving everyone else."""

import socket
import struct
import time

import pytest
from bson import SON
from pymongo import WriteConcern

import mongowire
from compat_helpers import assert_ping


def hello(db_name="admin"):
    return SON([("hello", 1), ("$db", db_name)])


def test_raw_hello_roundtrip(server):
    with mongowire.connect(server.host, server.port) as s:
        reply = mongowire.roundtrip(s, hello(), request_id=77)
    assert reply.response_to == 77
    assert reply.doc["ok"] == 1
    assert reply.doc["isWritablePrimary"] is True
    assert reply.doc["maxBsonObjectSize"] == 16 * 1024 * 1024
    assert reply.doc["maxMessageSizeBytes"] == 48000000
    assert reply.doc["maxWireVersion"] >= 8  # pymongo 4.x needs MongoDB 4.2+


@pytest.mark.parametrize("cmd", ["hello", "isMaster", "ismaster"])
def test_legacy_op_query_handshake(server, cmd):
    with mongowire.connect(server.host, server.port) as s:
        s.sendall(mongowire.op_query("admin.$cmd", SON([(cmd, 1)]), request_id=31))
        response_to, doc = mongowire.read_op_reply(s)
    assert response_to == 31
    assert doc["ok"] == 1
    assert doc["maxBsonObjectSize"] == 16 * 1024 * 1024
    if cmd == "hello":
        assert doc["isWritablePrimary"] is True
    else:
        assert doc["ismaster"] is True


def test_pipelined_requests_answered_in_order(server):
    with mongowire.connect(server.host, server.port) as s:
        s.sendall(b"".join(mongowire.op_msg(SON([("ping", 1), ("$db", "admin")]),
                                            request_id=i) for i in range(1, 6)))
        assert [mongowire.read_reply(s).response_to for _ in range(5)] == [1, 2, 3, 4, 5]


def _expect_hangup_or_error(server, payload, half_close=False):
    with mongowire.connect(server.host, server.port) as s:
        s.sendall(payload)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        return mongowire.closed_or_error(s)


@pytest.mark.parametrize("name,payload", [
    ("length below header size", struct.pack("<iiii", 5, 1, 0, 2013)),
    ("negative length", struct.pack("<iiii", -100, 1, 0, 2013)),
    ("length above 48MB", struct.pack("<iiii", 64 * 1024 * 1024, 1, 0, 2013)),
])
def test_bad_length_closes_connection(client, server, name, payload):
    assert _expect_hangup_or_error(server, payload) == "closed", name
    assert_ping(client)


def test_truncated_message_then_eof(client, server):
    full = mongowire.op_msg(hello())
    with mongowire.connect(server.host, server.port) as s:
        s.sendall(full[:len(full) - 7])
        # While this connection waits for the rest, others are served.
        assert_ping(client)
        s.shutdown(socket.SHUT_WR)
        assert mongowire.closed_or_error(s) == "closed"
    assert_ping(client)


MALFORMED_BODIES = {
    "bson length past end": struct.pack("<I", 0) + b"\x00" + struct.pack("<i", 500) + b"\x10a\x00",
    "bson missing terminator": struct.pack("<I", 0) + b"\x00" + struct.pack("<i", 7) + b"\x0aa\x00",
    "unknown section kind": struct.pack("<I", 0) + b"\x07" + b"\x05\x00\x00\x00\x00",
    "no body section": struct.pack("<I", 0),
    "unknown required flag bit": struct.pack("<I", 1 << 3) + b"\x00" + b"\x05\x00\x00\x00\x00",
}


@pytest.mark.parametrize("name", list(MALFORMED_BODIES))
def test_malformed_op_msg(client, server, name):
    body = MALFORMED_BODIES[name]
    msg = struct.pack("<iiii", 16 + len(body), 1, 0, 2013) + body
    result = _expect_hangup_or_error(server, msg)
    assert result == "closed" or result["ok"] == 0, (name, result)
    assert_ping(client)


def test_unknown_opcode(client, server):
    body = b"\x00" * 8
    msg = struct.pack("<iiii", 16 + len(body), 1, 0, 4242) + body
    result = _expect_hangup_or_error(server, msg)
    assert result == "closed" or result["ok"] == 0, result
    assert_ping(client)


def test_garbage_bytes(client, server):
    # MongoDB answers an HTTP request with a plain-text hint, then hangs up.
    with mongowire.connect(server.host, server.port) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert mongowire.closes_soon(s)
    assert_ping(client)


def test_checksum_good_is_accepted(server):
    with mongowire.connect(server.host, server.port) as s:
        reply = mongowire.roundtrip(s, SON([("ping", 1), ("$db", "admin")]), checksum="good")
    assert reply.doc["ok"] == 1


def test_checksum_bad_is_rejected(client, server):
    msg = mongowire.op_msg(SON([("ping", 1), ("$db", "admin")]), checksum="good")
    bad = msg[:-4] + struct.pack("<I", (struct.unpack("<I", msg[-4:])[0] ^ 0xDEADBEEF))
    result = _expect_hangup_or_error(server, bad)
    assert result == "closed" or result["ok"] == 0, result
    assert_ping(client)


def test_more_to_come_gets_no_reply(server, db):
    """An OP_MSG with moreToCome (what w:0 sends) must not be answered: the
    next reply on the socket belongs to the next request."""
    ins = SON([("insert", "c"), ("documents", [{"_id": 1}]), ("$db", db.name),
               ("writeConcern", {"w": 0})])
    with mongowire.connect(server.host, server.port) as s:
        s.sendall(mongowire.op_msg(ins, request_id=1, flags=mongowire.FLAG_MORE_TO_COME))
        reply = mongowire.roundtrip(s, SON([("find", "c"), ("$db", db.name)]), request_id=2)
    assert reply.response_to == 2
    assert reply.doc["cursor"]["firstBatch"] == [{"_id": 1}]


def test_unacknowledged_inserts_land(client, coll):
    fire = coll.with_options(write_concern=WriteConcern(w=0))
    results = [fire.insert_one({"i": i}) for i in range(50)]
    assert not any(r.acknowledged for r in results)
    fire.insert_many([{"i": i} for i in range(50, 100)])
    deadline = time.monotonic() + 5
    while coll.count_documents({}) < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert coll.count_documents({}) == 100
    assert sorted(d["i"] for d in coll.find()) == list(range(100))
    assert_ping(client)


def test_unacknowledged_error_is_silent_and_harmless(client, coll):
    coll.insert_one({"_id": 1})
    fire = coll.with_options(write_concern=WriteConcern(w=0))
    fire.insert_one({"_id": 1})  # duplicate: no reply, no exception
    fire.insert_one({"_id": 2})
    deadline = time.monotonic() + 5
    while coll.count_documents({}) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(d["_id"] for d in coll.find()) == [1, 2]
    assert_ping(client)


def test_many_connections(client, server):
    socks = [mongowire.connect(server.host, server.port) for _ in range(50)]
    try:
        for i, s in enumerate(socks):
            assert mongowire.roundtrip(s, hello(), request_id=i + 1).doc["ok"] == 1
    finally:
        for s in socks:
            s.close()
    assert_ping(client)
