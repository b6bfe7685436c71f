"""CRUD through pymongo: inserts, queries, updates, deletes, findAndModify,
counts and distinct, with MongoDB's results and error details."""

import pytest
from bson import SON, ObjectId
from pymongo import ASCENDING, DESCENDING, ReturnDocument
from pymongo.errors import BulkWriteError, DuplicateKeyError


def test_insert_one_assigns_objectid(coll):
    res = coll.insert_one({"a": 1})
    assert res.acknowledged
    assert isinstance(res.inserted_id, ObjectId)
    assert coll.find_one({"_id": res.inserted_id}) == {"_id": res.inserted_id, "a": 1}


def test_insert_moves_id_first_and_keeps_field_order(coll):
    # pymongo itself puts a top-level _id first, so go through the command.
    doc = SON([("z", 1), ("_id", "k"), ("a", SON([("y", 2), ("x", 1)]))])
    coll.database.command("insert", coll.name, documents=[doc])
    doc = coll.find_one({"_id": "k"})
    assert list(doc.keys()) == ["_id", "z", "a"]  # _id moved first
    assert list(doc["a"].keys()) == ["y", "x"]


def test_insert_one_duplicate_id(coll):
    coll.insert_one({"_id": 7})
    with pytest.raises(DuplicateKeyError) as ei:
        coll.insert_one({"_id": 7})
    assert ei.value.code == 11000
    assert "E11000 duplicate key error" in ei.value.details["errmsg"]


def test_duplicate_key_error_details(coll):
    coll.insert_one({"_id": 7})
    with pytest.raises(DuplicateKeyError) as ei:
        coll.insert_one({"_id": 7})
    assert ei.value.details["keyPattern"] == {"_id": 1}
    assert ei.value.details["keyValue"] == {"_id": 7}
    with pytest.raises(BulkWriteError) as ei:
        coll.insert_many([{"_id": 8}, {"_id": 8}])
    we = ei.value.details["writeErrors"][0]
    assert (we["keyPattern"], we["keyValue"]) == ({"_id": 1}, {"_id": 8})


def test_insert_many_ordered_stops_at_duplicate(coll):
    with pytest.raises(BulkWriteError) as ei:
        coll.insert_many([{"_id": 1}, {"_id": 1}, {"_id": 2}], ordered=True)
    d = ei.value.details
    assert d["nInserted"] == 1
    assert len(d["writeErrors"]) == 1
    we = d["writeErrors"][0]
    assert we["index"] == 1
    assert we["code"] == 11000
    assert we["keyPattern"] == {"_id": 1}
    assert we["keyValue"] == {"_id": 1}
    assert "E11000" in we["errmsg"]
    assert sorted(d["_id"] for d in coll.find()) == [1]


def test_insert_many_unordered_continues(coll):
    with pytest.raises(BulkWriteError) as ei:
        coll.insert_many([{"_id": 1}, {"_id": 1}, {"_id": 2}, {"_id": 2}, {"_id": 3}],
                         ordered=False)
    d = ei.value.details
    assert d["nInserted"] == 3
    assert [e["index"] for e in d["writeErrors"]] == [1, 3]
    assert all(e["code"] == 11000 for e in d["writeErrors"])
    assert sorted(x["_id"] for x in coll.find()) == [1, 2, 3]


def test_insert_many_returns_ids(coll):
    res = coll.insert_many([{"i": i} for i in range(50)])
    assert len(res.inserted_ids) == 50
    assert coll.count_documents({}) == 50


@pytest.fixture
def people(coll):
    coll.insert_many([
        {"_id": 1, "name": "ann", "age": 31, "tags": ["a", "b"], "addr": {"city": "oslo"}},
        {"_id": 2, "name": "bob", "age": 25, "tags": ["b"], "addr": {"city": "rome"}},
        {"_id": 3, "name": "cid", "age": 42, "tags": [], "addr": {"city": "oslo"}},
        {"_id": 4, "name": "dee", "age": 25, "addr": {"city": "lima"}},
        {"_id": 5, "name": "eve", "age": None},
    ])
    return coll


@pytest.mark.parametrize("flt,want", [
    ({}, [1, 2, 3, 4, 5]),
    ({"age": 25}, [2, 4]),
    ({"age": {"$gt": 30}}, [1, 3]),
    ({"age": {"$gte": 25, "$lt": 40}}, [1, 2, 4]),
    ({"age": {"$in": [31, 42]}}, [1, 3]),
    ({"age": {"$nin": [25]}}, [1, 3, 5]),
    ({"age": {"$ne": 25}}, [1, 3, 5]),
    ({"age": None}, [5]),
    ({"age": {"$exists": False}}, []),
    ({"addr": {"$exists": False}}, [5]),
    ({"addr.city": "oslo"}, [1, 3]),
    ({"tags": "b"}, [1, 2]),
    ({"tags": {"$size": 0}}, [3]),
    ({"tags": {"$all": ["a", "b"]}}, [1]),
    ({"tags.0": "b"}, [2]),
    ({"$or": [{"age": 42}, {"name": "bob"}]}, [2, 3]),
    ({"$and": [{"age": 25}, {"name": {"$regex": "^d"}}]}, [4]),
    ({"name": {"$not": {"$regex": "^[abc]"}}}, [4, 5]),
    ({"$nor": [{"age": 25}, {"age": None}]}, [1, 3]),
    ({"age": {"$type": "int"}}, [1, 2, 3, 4]),
    ({"age": {"$type": "null"}}, [5]),
    ({"$expr": {"$gt": ["$age", 30]}}, [1, 3]),
])
def test_find_filters(people, flt, want):
    assert [d["_id"] for d in people.find(flt).sort("_id", 1)] == want


def test_find_projection_include_exclude(people):
    assert people.find_one({"_id": 1}, {"name": 1}) == {"_id": 1, "name": "ann"}
    assert people.find_one({"_id": 1}, {"name": 1, "_id": 0}) == {"name": "ann"}
    assert people.find_one({"_id": 2}, {"tags": 0, "addr": 0, "age": 0}) == {"_id": 2, "name": "bob"}
    assert people.find_one({"_id": 1}, {"addr.city": 1, "_id": 0}) == {"addr": {"city": "oslo"}}
    assert people.find_one({"_id": 1}, {"tags": {"$slice": 1}, "_id": 0, "name": 1}) == \
        {"name": "ann", "tags": ["a"]}


def test_find_sort_skip_limit(people):
    got = [d["_id"] for d in people.find().sort([("age", DESCENDING), ("_id", ASCENDING)])]
    assert got == [3, 1, 2, 4, 5]  # null sorts lowest
    got = [d["_id"] for d in people.find().sort([("age", ASCENDING), ("_id", DESCENDING)])]
    assert got == [5, 4, 2, 1, 3]
    got = [d["_id"] for d in people.find().sort("_id", 1).skip(1).limit(2)]
    assert got == [2, 3]
    assert list(people.find().sort("_id", 1).skip(10)) == []


def test_find_one_none_when_missing(people):
    assert people.find_one({"_id": 99}) is None
    assert people.find_one({"name": "cid"})["_id"] == 3


def test_update_one_and_many_operators(people):
    r = people.update_one({"_id": 1}, {"$set": {"addr.zip": "0150"}, "$inc": {"age": 1}})
    assert (r.matched_count, r.modified_count) == (1, 1)
    assert people.find_one({"_id": 1}, {"_id": 0, "age": 1, "addr": 1}) == \
        {"age": 32, "addr": {"city": "oslo", "zip": "0150"}}
    r = people.update_many({"age": 25}, {"$push": {"tags": "new"}, "$unset": {"addr": ""}})
    assert (r.matched_count, r.modified_count) == (2, 2)
    assert people.find_one({"_id": 4}) == {"_id": 4, "name": "dee", "age": 25, "tags": ["new"]}
    r = people.update_one({"_id": 2}, {"$set": {"name": "bob"}})  # no-op
    assert (r.matched_count, r.modified_count) == (1, 0)
    r = people.update_many({"_id": {"$gt": 100}}, {"$set": {"x": 1}})
    assert (r.matched_count, r.modified_count, r.upserted_id) == (0, 0, None)


def test_update_array_operators(coll):
    coll.insert_one({"_id": 1, "a": [3, 1, 2], "s": [1]})
    coll.update_one({"_id": 1}, {"$addToSet": {"s": {"$each": [1, 2, 3]}}})
    coll.update_one({"_id": 1}, {"$pull": {"a": {"$gte": 2}}})
    coll.update_one({"_id": 1}, {"$push": {"a": {"$each": [9, 0], "$sort": 1}}})
    coll.update_one({"_id": 1, "s": 2}, {"$set": {"s.$": 20}})
    coll.update_one({"_id": 1}, {"$pop": {"s": 1}, "$min": {"m": 5}, "$max": {"x": 7}})
    coll.update_one({"_id": 1}, {"$mul": {"x": 2}, "$rename": {"m": "n"}})
    assert coll.find_one({"_id": 1}) == {"_id": 1, "a": [0, 1, 9], "s": [1, 20], "x": 14, "n": 5}


def test_upsert_sets_upserted_id(coll):
    r = coll.update_one({"x": 5}, {"$set": {"y": 1}}, upsert=True)
    assert (r.matched_count, r.modified_count) == (0, 0)
    assert isinstance(r.upserted_id, ObjectId)
    assert coll.find_one({"_id": r.upserted_id}) == {"_id": r.upserted_id, "x": 5, "y": 1}
    r = coll.update_one({"_id": "u1", "k": {"$gt": 1}}, {"$setOnInsert": {"v": 2}}, upsert=True)
    assert r.upserted_id == "u1"
    assert coll.find_one({"_id": "u1"}) == {"_id": "u1", "v": 2}
    r = coll.update_one({"x": 5}, {"$set": {"y": 2}}, upsert=True)
    assert (r.matched_count, r.modified_count, r.upserted_id) == (1, 1, None)


def test_replace_one(people):
    r = people.replace_one({"_id": 2}, {"name": "bo", "v": 2})
    assert (r.matched_count, r.modified_count) == (1, 1)
    assert people.find_one({"_id": 2}) == {"_id": 2, "name": "bo", "v": 2}
    r = people.replace_one({"_id": 77}, {"name": "new"}, upsert=True)
    assert r.upserted_id == 77
    assert people.find_one({"_id": 77}) == {"_id": 77, "name": "new"}


def test_delete_one_and_many(people):
    assert people.delete_one({"age": 25}).deleted_count == 1
    assert people.delete_many({"addr.city": "oslo"}).deleted_count == 2
    assert people.delete_many({"nope": 1}).deleted_count == 0
    assert people.count_documents({}) == 2
    assert people.delete_many({}).deleted_count == 2
    assert people.find_one() is None


def test_find_one_and_update(people):
    before = people.find_one_and_update({"age": 25}, {"$inc": {"age": 1}},
                                        sort=[("_id", DESCENDING)])
    assert before["_id"] == 4 and before["age"] == 25
    after = people.find_one_and_update({"age": 25}, {"$inc": {"age": 10}},
                                       return_document=ReturnDocument.AFTER,
                                       projection={"age": 1})
    assert after == {"_id": 2, "age": 35}
    assert people.find_one_and_update({"_id": 99}, {"$set": {"a": 1}}) is None
    up = people.find_one_and_update({"_id": 99}, {"$set": {"a": 1}}, upsert=True,
                                    return_document=ReturnDocument.AFTER)
    assert up == {"_id": 99, "a": 1}


def test_find_one_and_replace(people):
    before = people.find_one_and_replace({"addr.city": "oslo"}, {"name": "x"},
                                         sort=[("age", DESCENDING)])
    assert before["_id"] == 3
    assert people.find_one({"_id": 3}) == {"_id": 3, "name": "x"}
    after = people.find_one_and_replace({"_id": 1}, {"name": "y"},
                                        return_document=ReturnDocument.AFTER)
    assert after == {"_id": 1, "name": "y"}


def test_find_one_and_delete(people):
    gone = people.find_one_and_delete({"age": 25}, sort=[("_id", DESCENDING)])
    assert gone["_id"] == 4
    assert people.find_one({"_id": 4}) is None
    assert people.find_one_and_delete({"_id": 99}) is None
    assert people.count_documents({}) == 4


def test_count_documents_and_estimate(people):
    assert people.count_documents({}) == 5
    assert people.count_documents({"age": 25}) == 2
    assert people.count_documents({}, skip=1, limit=2) == 2
    assert people.count_documents({}, skip=4) == 1
    assert people.count_documents({"nope": 1}) == 0
    assert people.estimated_document_count() == 5
    assert people.database["missing"].estimated_document_count() == 0
    assert people.database["missing"].count_documents({}) == 0


def test_distinct(people):
    assert sorted(people.distinct("tags")) == ["a", "b"]  # arrays unwound
    assert sorted(people.distinct("addr.city")) == ["lima", "oslo", "rome"]
    assert sorted(people.distinct("name", {"age": 25})) == ["bob", "dee"]
    assert people.distinct("nope") == []
    ages = people.distinct("age")
    assert None in ages and sorted(a for a in ages if a is not None) == [25, 31, 42]


def test_elem_match_and_positional_projection(coll):
    coll.insert_many([
        {"_id": 1, "items": [{"sku": "a", "q": 1}, {"sku": "b", "q": 5}]},
        {"_id": 2, "items": [{"sku": "a", "q": 9}, {"sku": "c", "q": 1}]},
    ])
    got = [d["_id"] for d in coll.find({"items": {"$elemMatch": {"sku": "a", "q": {"$gt": 2}}}})]
    assert got == [2]
    # Without $elemMatch the conditions may match different elements.
    assert sorted(d["_id"] for d in coll.find({"items.sku": "a", "items.q": {"$gt": 2}})) == [1, 2]
    doc = coll.find_one({"items.sku": "c"}, {"items.$": 1})
    assert doc == {"_id": 2, "items": [{"sku": "c", "q": 1}]}
    doc = coll.find_one({"_id": 1}, {"items": {"$elemMatch": {"q": 5}}})
    assert doc == {"_id": 1, "items": [{"sku": "b", "q": 5}]}


def test_array_filters_and_all_positional(coll):
    coll.insert_one({"_id": 1, "g": [3, 8, 12], "m": [{"x": 1}, {"x": 5}]})
    coll.update_one({"_id": 1}, {"$set": {"g.$[big]": 0}}, array_filters=[{"big": {"$gte": 8}}])
    coll.update_one({"_id": 1}, {"$inc": {"m.$[].x": 10}})
    assert coll.find_one({"_id": 1}) == {"_id": 1, "g": [3, 0, 0], "m": [{"x": 11}, {"x": 15}]}


def test_pipeline_update(coll):
    coll.insert_many([{"_id": 1, "a": 2, "b": 3}, {"_id": 2, "a": 10, "b": 1}])
    r = coll.update_many({}, [{"$set": {"sum": {"$add": ["$a", "$b"]}}}, {"$unset": "b"}])
    assert r.modified_count == 2
    assert list(coll.find().sort("_id", 1)) == [{"_id": 1, "a": 2, "sum": 5},
                                                {"_id": 2, "a": 10, "sum": 11}]


def test_update_creates_nested_paths_and_array_growth(coll):
    coll.insert_one({"_id": 1, "arr": [1]})
    coll.update_one({"_id": 1}, {"$set": {"a.b.c": 1, "arr.3": 4}})
    assert coll.find_one({"_id": 1}) == {"_id": 1, "arr": [1, None, None, 4], "a": {"b": {"c": 1}}}


def test_current_date_and_set_on_insert_ignored_on_update(coll):
    coll.insert_one({"_id": 1})
    coll.update_one({"_id": 1}, {"$currentDate": {"t": True}, "$setOnInsert": {"x": 1}},
                    upsert=True)
    doc = coll.find_one({"_id": 1})
    assert "x" not in doc
    assert doc["t"].year >= 2024
