"""Hidden indexes, collMod of index options (hidden, expireAfterSeconds)
and wildcard indexes in the planner, through pymongo, as MongoDB answers
them."""

import pytest
from pymongo.errors import DuplicateKeyError, OperationFailure

from compat_helpers import assert_op_failure, find_stage


def _plan(coll, flt):
    return coll.find(flt).explain()["queryPlanner"]["winningPlan"]


def test_hidden_index_is_not_planned_but_maintained(coll):
    coll.insert_many([{"_id": i, "a": i % 5, "u": i} for i in range(20)])
    coll.create_index("a", hidden=True)
    coll.create_index("u", unique=True, hidden=True)
    info = coll.index_information()
    assert info["a_1"]["hidden"] is True
    assert find_stage(_plan(coll, {"a": 2}), "COLLSCAN")
    with pytest.raises(OperationFailure) as exc:
        coll.find_one({"a": 2}, hint="a_1")
    assert_op_failure(exc, 2, "BadValue")
    with pytest.raises(DuplicateKeyError):
        coll.insert_one({"_id": 99, "u": 3})


def test_coll_mod_unhide_and_hide(db, coll):
    coll.insert_many([{"_id": i, "a": i % 5} for i in range(20)])
    coll.create_index("a")
    assert find_stage(_plan(coll, {"a": 2}), "IXSCAN")
    res = db.command("collMod", coll.name, index={"keyPattern": {"a": 1}, "hidden": True})
    assert res["hidden_old"] is False and res["hidden_new"] is True
    assert find_stage(_plan(coll, {"a": 2}), "COLLSCAN")
    res = db.command("collMod", coll.name, index={"name": "a_1", "hidden": False})
    assert res["hidden_old"] is True and res["hidden_new"] is False
    assert "hidden" not in coll.index_information()["a_1"]
    assert find_stage(_plan(coll, {"a": 2}), "IXSCAN")


def test_coll_mod_expire_after_seconds(db, coll):
    coll.create_index("at", expireAfterSeconds=3600)
    res = db.command("collMod", coll.name, index={"name": "at_1", "expireAfterSeconds": 10})
    assert res["expireAfterSeconds_old"] == 3600
    assert res["expireAfterSeconds_new"] == 10
    assert coll.index_information()["at_1"]["expireAfterSeconds"] == 10


@pytest.mark.parametrize("index,code", [
    ({"name": "missing", "hidden": True}, 27),
    ({"name": "_id_", "hidden": True}, 2),
    ({"name": "a_1", "expireAfterSeconds": 5}, 72),
    ({"name": "a_1"}, 72),
    ({"hidden": True}, 72),
])
def test_coll_mod_index_errors(db, coll, index, code):
    coll.create_index("a")
    with pytest.raises(OperationFailure) as exc:
        db.command("collMod", coll.name, index=index)
    assert_op_failure(exc, code)


def test_hidden_id_index_refused(coll):
    with pytest.raises(OperationFailure) as exc:
        coll.create_index("_id", hidden=True, name="_id_")
    assert_op_failure(exc, 2)


def _ixscan(plan):
    if isinstance(plan, dict):
        if plan.get("stage") == "IXSCAN":
            return plan
        for v in plan.values():
            found = _ixscan(v)
            if found:
                return found
    if isinstance(plan, list):
        for v in plan:
            found = _ixscan(v)
            if found:
                return found
    return None


def test_wildcard_index_planned_without_hint(coll):
    coll.insert_many([{"_id": i, "a": i % 4, "s": {"x": i, "y": [i, i + 1]}} for i in range(40)])
    coll.create_index([("$**", 1)])
    ix = _ixscan(_plan(coll, {"s.x": {"$gte": 30}}))
    assert ix is not None and ix["keyPattern"] == {"$_path": 1, "s.x": 1}
    for flt in ({"a": 2}, {"s.x": {"$gte": 30}}, {"s.y": 5}, {"a": {"$in": [1, 3]}},
                {"a": {"$ne": 2}}, {"a": None}, {"s.y.0": 5}):
        want = sorted(d["_id"] for d in coll.find(flt, hint=[("$natural", 1)]))
        assert sorted(d["_id"] for d in coll.find(flt)) == want, flt
    assert find_stage(_plan(coll, {"a": {"$ne": 2}}), "COLLSCAN")


def test_wildcard_projection_and_options(coll):
    coll.insert_many([{"_id": i, "a": {"b": i, "c": i}, "z": i} for i in range(10)])
    coll.create_index([("$**", 1)], wildcardProjection={"a.b": 1})
    assert coll.index_information()["$**_1"]["wildcardProjection"] == {"a.b": 1}
    assert _ixscan(_plan(coll, {"a.b": 3})) is not None
    assert find_stage(_plan(coll, {"z": 3}), "COLLSCAN")
    assert [d["_id"] for d in coll.find({"a.b": 3})] == [3]
    with pytest.raises(OperationFailure) as exc:
        coll.create_index([("w.$**", 1)], unique=True)
    assert_op_failure(exc, 67)
