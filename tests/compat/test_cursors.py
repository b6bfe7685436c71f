"""Cursors: batches and getMore, limits, killCursors and CursorNotFound."""

import pytest
from bson import Int64
from pymongo import MongoClient, monitoring
from pymongo.errors import OperationFailure

from compat_helpers import assert_op_failure


class Recorder(monitoring.CommandListener):
    """Records the names of the commands a client sends."""

    def __init__(self):
        self.names = []

    def started(self, event):
        self.names.append(event.command_name)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass

    def count(self, name):
        return self.names.count(name)


@pytest.fixture
def recorded(server, db):
    """(collection, recorder): the test's collection via a monitored client."""
    rec = Recorder()
    client = MongoClient(server.uri, event_listeners=[rec])
    yield client[db.name]["c"], rec
    client.close()


@pytest.fixture
def thousand(coll):
    coll.insert_many([{"_id": i, "v": i % 10} for i in range(1000)])
    return coll


def test_batch_size_issues_many_getmores(thousand, recorded):
    coll, rec = recorded
    ids = [d["_id"] for d in coll.find().sort("_id", 1).batch_size(10)]
    assert ids == list(range(1000))
    assert rec.count("find") == 1
    assert 99 <= rec.count("getMore") <= 100, rec.count("getMore")


def test_default_batches_return_everything(thousand):
    assert sum(1 for _ in thousand.find()) == 1000
    assert sum(1 for _ in thousand.find({"v": 3})) == 100


def test_sorted_results_span_batches(thousand):
    got = [d["_id"] for d in thousand.find({"v": {"$lt": 2}}).sort("_id", -1).batch_size(7)]
    want = [i for i in range(999, -1, -1) if i % 10 < 2]
    assert got == want


def test_limit_with_small_batches(thousand, recorded):
    coll, rec = recorded
    got = list(coll.find().sort("_id", 1).limit(15).batch_size(4))
    assert [d["_id"] for d in got] == list(range(15))


def test_cursor_closed_when_limit_reached_exactly(thousand, recorded):
    db = thousand.database
    first = db.command("find", thousand.name, limit=4, batchSize=2)
    more = db.command("getMore", Int64(first["cursor"]["id"]), collection=thousand.name,
                      batchSize=2)
    assert len(more["cursor"]["nextBatch"]) == 2
    assert more["cursor"]["id"] == 0
    coll, rec = recorded  # so pymongo never needs killCursors after a limit
    assert len(list(coll.find().limit(15).batch_size(4))) == 15
    assert rec.count("killCursors") == 0


def test_negative_limit_single_batch(thousand):
    got = list(thousand.find().sort("_id", 1).limit(-5))
    assert [d["_id"] for d in got] == list(range(5))


def test_exhausted_cursor_is_dead(thousand):
    cur = thousand.find({"_id": {"$lt": 5}}).batch_size(2)
    assert len(list(cur)) == 5
    assert not cur.alive
    assert cur.cursor_id in (None, 0)


def test_close_sends_kill_cursors_and_cursor_is_gone(thousand, recorded):
    coll, rec = recorded
    cur = coll.find().batch_size(2)
    next(cur)
    cid = cur.cursor_id
    assert cid  # a live server-side cursor
    cur.close()
    assert rec.count("killCursors") == 1
    with pytest.raises(OperationFailure) as ei:
        coll.database.command("getMore", Int64(cid), collection=coll.name)
    assert_op_failure(ei, 43, "CursorNotFound")


def test_kill_cursors_command_reports(thousand):
    db = thousand.database
    reply = db.command("find", thousand.name, batchSize=1)
    cid = reply["cursor"]["id"]
    assert cid != 0
    assert reply["cursor"]["ns"] == f"{db.name}.{thousand.name}"
    assert len(reply["cursor"]["firstBatch"]) == 1
    res = db.command("killCursors", thousand.name,
                     cursors=[Int64(cid), Int64(12345)])
    assert res["cursorsKilled"] == [cid]
    assert res["cursorsNotFound"] == [12345]
    with pytest.raises(OperationFailure) as ei:
        db.command("getMore", Int64(cid), collection=thousand.name)
    assert_op_failure(ei, 43, "CursorNotFound")


def test_getmore_cursor_id_must_be_long(coll):
    coll.insert_one({})
    with pytest.raises(OperationFailure) as ei:
        coll.database.command("getMore", 5, collection=coll.name)  # int32
    assert_op_failure(ei, 14, "TypeMismatch")


def test_getmore_unknown_cursor(coll):
    coll.insert_one({})
    with pytest.raises(OperationFailure) as ei:
        coll.database.command("getMore", Int64(987654321), collection=coll.name)
    assert_op_failure(ei, 43, "CursorNotFound")


def test_getmore_reply_shape(thousand):
    db = thousand.database
    first = db.command("find", thousand.name, batchSize=3, sort={"_id": 1})
    more = db.command("getMore", Int64(first["cursor"]["id"]), collection=thousand.name,
                      batchSize=4)
    assert more["cursor"]["id"] == first["cursor"]["id"]
    assert [d["_id"] for d in more["cursor"]["nextBatch"]] == [3, 4, 5, 6]
    db.command("killCursors", thousand.name, cursors=[Int64(first["cursor"]["id"])])


def test_find_on_missing_collection_is_empty(db):
    assert list(db["nope"].find()) == []
    reply = db.command("find", "nope")
    assert reply["cursor"]["id"] == 0
    assert reply["cursor"]["firstBatch"] == []
