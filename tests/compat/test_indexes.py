"""Secondary indexes through pymongo: creation options, listing, dropping,
unique enforcement and the plan explain reports."""

import datetime

import pytest
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError, OperationFailure

from compat_helpers import assert_op_failure, find_stage


def test_default_id_index(coll):
    coll.insert_one({"a": 1})
    info = coll.index_information()
    assert list(info) == ["_id_"]
    assert info["_id_"]["key"] == [("_id", 1)]


def test_create_index_names_and_options(coll):
    coll.insert_one({"a": 1})
    assert coll.create_index("a") == "a_1"
    assert coll.create_index([("a", ASCENDING), ("b", DESCENDING)]) == "a_1_b_-1"
    assert coll.create_index([("u", 1)], unique=True) == "u_1"
    assert coll.create_index([("s", 1)], sparse=True, name="s_sparse") == "s_sparse"
    assert coll.create_index([("p", 1)], partialFilterExpression={"p": {"$gt": 5}}) == "p_1"
    assert coll.create_index([("ts", 1)], expireAfterSeconds=3600) == "ts_1"
    info = coll.index_information()
    assert set(info) == {"_id_", "a_1", "a_1_b_-1", "u_1", "s_sparse", "p_1", "ts_1"}
    assert info["a_1_b_-1"]["key"] == [("a", 1), ("b", -1)]
    assert info["u_1"]["unique"] is True
    assert info["s_sparse"]["sparse"] is True
    assert info["p_1"]["partialFilterExpression"] == {"p": {"$gt": 5}}
    assert info["ts_1"]["expireAfterSeconds"] == 3600
    assert "unique" not in info["a_1"]


def test_create_index_on_missing_collection_creates_it(db):
    db["fresh"].create_index("x")
    assert "fresh" in db.list_collection_names()
    assert "x_1" in db["fresh"].index_information()


def test_list_indexes_documents(coll):
    coll.create_index([("a", 1)], unique=True)
    specs = {ix["name"]: ix for ix in coll.list_indexes()}
    assert specs["_id_"]["key"] == {"_id": 1}
    assert specs["a_1"]["key"] == {"a": 1}
    assert specs["a_1"]["unique"] is True
    assert specs["a_1"]["v"] == 2


def test_create_same_index_twice_is_noop(coll):
    assert coll.create_index("a") == "a_1"
    assert coll.create_index("a") == "a_1"
    assert len(coll.index_information()) == 2


def test_index_options_conflict(coll):
    coll.create_index("a")
    with pytest.raises(OperationFailure) as ei:
        coll.create_index("a", unique=True)  # same name, other options
    assert ei.value.code in (85, 86), ei.value.details  # IndexOptions/KeySpecsConflict
    with pytest.raises(OperationFailure) as ei:
        coll.create_index([("b", 1)], name="a_1")  # same name, other key
    assert_op_failure(ei, 86, "IndexKeySpecsConflict")


def test_drop_index(coll):
    coll.create_index("a")
    coll.create_index([("b", -1)])
    coll.drop_index("a_1")
    coll.drop_index([("b", -1)])
    assert list(coll.index_information()) == ["_id_"]
    with pytest.raises(OperationFailure) as ei:
        coll.drop_index("nope_1")
    assert_op_failure(ei, 27, "IndexNotFound")


def test_drop_id_index_refused(coll):
    coll.insert_one({})
    with pytest.raises(OperationFailure) as ei:
        coll.drop_index("_id_")
    assert_op_failure(ei, 72, "InvalidOptions")


def test_drop_indexes_keeps_id(coll):
    coll.create_index("a")
    coll.create_index("b")
    coll.drop_indexes()
    assert list(coll.index_information()) == ["_id_"]


def test_unique_index_rejects_duplicates(coll):
    coll.create_index("email", unique=True)
    coll.insert_one({"email": "a@x"})
    with pytest.raises(DuplicateKeyError) as ei:
        coll.insert_one({"email": "a@x"})
    assert ei.value.code == 11000
    assert "index: email_1" in ei.value.details["errmsg"]
    assert ei.value.details["keyPattern"] == {"email": 1}
    assert ei.value.details["keyValue"] == {"email": "a@x"}
    coll.insert_one({"email": "b@x"})
    with pytest.raises(DuplicateKeyError):
        coll.update_one({"email": "b@x"}, {"$set": {"email": "a@x"}})
    # Missing fields index as null: only one document may lack the field.
    coll.insert_one({"other": 1})
    with pytest.raises(DuplicateKeyError):
        coll.insert_one({"other": 2})
    assert coll.count_documents({}) == 3


def test_unique_violation_reports_key(coll):
    coll.create_index([("email", 1), ("n", -1)], unique=True)
    coll.insert_one({"email": "a@x", "n": 1})
    with pytest.raises(DuplicateKeyError) as ei:
        coll.insert_one({"email": "a@x", "n": 1})
    assert ei.value.details["keyPattern"] == {"email": 1, "n": -1}
    assert ei.value.details["keyValue"] == {"email": "a@x", "n": 1}


def test_unique_index_build_fails_on_existing_duplicates(coll):
    coll.insert_many([{"a": 1}, {"a": 1}])
    with pytest.raises(OperationFailure) as ei:
        coll.create_index("a", unique=True)
    assert ei.value.code == 11000
    assert "a_1" not in coll.index_information()


def test_unique_sparse_allows_many_missing(coll):
    coll.create_index("a", unique=True, sparse=True)
    coll.insert_many([{"x": 1}, {"x": 2}, {"a": 1}])
    with pytest.raises(DuplicateKeyError):
        coll.insert_one({"a": 1})


def test_unique_partial_only_covers_filtered_docs(coll):
    coll.create_index("a", unique=True, partialFilterExpression={"live": True})
    coll.insert_many([{"a": 1, "live": False}, {"a": 1, "live": False}, {"a": 1, "live": True}])
    with pytest.raises(DuplicateKeyError):
        coll.insert_one({"a": 1, "live": True})


def test_compound_desc_index_serves_sorted_query(coll):
    coll.create_index([("a", 1), ("b", -1)])
    coll.insert_many([{"a": i % 3, "b": i} for i in range(30)])
    got = [(d["a"], d["b"]) for d in coll.find({"a": 1}).sort([("a", 1), ("b", -1)])]
    assert got == [(1, b) for b in range(28, 0, -3)]


def test_explain_ixscan_vs_collscan(coll):
    coll.insert_many([{"a": i, "b": i} for i in range(100)])
    coll.create_index("a")
    with_index = coll.find({"a": 5}).explain()["queryPlanner"]["winningPlan"]
    assert find_stage(with_index, "IXSCAN"), with_index
    assert not find_stage(with_index, "COLLSCAN"), with_index
    without = coll.find({"b": 5}).explain()["queryPlanner"]["winningPlan"]
    assert find_stage(without, "COLLSCAN"), without
    assert not find_stage(without, "IXSCAN"), without
    assert [d["b"] for d in coll.find({"a": {"$gte": 97}}).sort("a", 1)] == [97, 98, 99]


def test_ttl_index_accepts_dates(coll):
    coll.create_index("ts", expireAfterSeconds=3600)
    now = datetime.datetime.now(datetime.timezone.utc)
    coll.insert_one({"ts": now})
    # Not expired yet: an hour to go. (The TTL monitor runs every 60 s in
    # MongoDB, too slow to wait for here.)
    assert coll.count_documents({}) == 1


def test_hint_by_name_and_by_key(coll):
    coll.insert_many([{"a": i % 5, "b": i} for i in range(50)])
    coll.create_index("a")
    assert coll.count_documents({"a": 2}, hint="a_1") == 10
    assert len(list(coll.find({"a": 2}).hint([("a", 1)]))) == 10
    plan = coll.find({"a": 2, "b": {"$gt": 10}}).hint("a_1").explain()["queryPlanner"]["winningPlan"]
    assert find_stage(plan, "IXSCAN"), plan
    with pytest.raises(OperationFailure) as ei:
        list(coll.find({"a": 2}).hint("nope_1"))
    assert_op_failure(ei, 2, "BadValue")


def test_hint_natural_forces_collscan(coll):
    coll.insert_many([{"a": i} for i in range(20)])
    coll.create_index("a")
    assert coll.count_documents({"a": 3}, hint={"$natural": 1}) == 1
    plan = coll.find({"a": 3}).hint([("$natural", 1)]).explain()["queryPlanner"]["winningPlan"]
    assert find_stage(plan, "COLLSCAN"), plan
    got = [d["a"] for d in coll.find().hint([("$natural", -1)])]
    assert got == list(range(19, -1, -1))  # reverse insertion order
