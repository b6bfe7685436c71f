"""Text indexes and $text through pymongo: create_index with TEXT, the
normalized spec, find with $text sorted by textScore, counts, aggregate,
writes, explain, errors, and the same search through a router."""

import pytest
from pymongo import MongoClient, TEXT
from pymongo.errors import OperationFailure

from compat_helpers import assert_op_failure, find_stage

DOCS = [
    {"_id": 1, "title": "cakes and ale", "body": "The quick brown fox"},
    {"_id": 2, "title": "more cakes", "body": "a lazy dog"},
    {"_id": 3, "title": "bread", "body": "cake cake cake recipes"},
    {"_id": 4, "title": "Café", "body": "coffee shop"},
    {"_id": 5, "other": "cake"},
]

SCORE = {"$meta": "textScore"}


def scored(coll, query, **kw):
    cur = coll.find({"$text": {"$search": query, **kw}}, {"score": SCORE})
    return [(d["_id"], round(d["score"], 6)) for d in cur.sort([("score", SCORE), ("_id", 1)])]


@pytest.fixture
def texts(coll):
    coll.insert_many(DOCS)
    name = coll.create_index([("title", TEXT), ("body", TEXT)], weights={"title": 10})
    assert name == "title_text_body_text"
    return coll


def test_create_index_text_spec(texts):
    info = texts.index_information()["title_text_body_text"]
    assert info["key"] == [("_fts", "text"), ("_ftsx", 1)]
    assert info["weights"] == {"body": 1, "title": 10}
    assert info["default_language"] == "english"
    assert info["language_override"] == "language"
    assert info["textIndexVersion"] == 3


def test_one_text_index_per_collection(texts):
    with pytest.raises(OperationFailure) as exc:
        texts.create_index([("other", TEXT)])
    assert_op_failure(exc, 85, "IndexOptionsConflict")
    with pytest.raises(OperationFailure) as exc:
        texts.create_index([("p", 1), ("other", TEXT)])
    assert_op_failure(exc, 67, "CannotCreateIndex")


def test_find_sorted_by_text_score(texts):
    # MongoDB's scores: "more cakes" (stop word "more") is all cake: 10;
    # "cakes and ale": 10 * 0.75; "cake cake cake recipes": 1.75 * 0.875.
    assert scored(texts, "cakes") == [(2, 10.0), (1, 7.5), (3, 1.53125)]
    assert scored(texts, "fox dog") == [(2, 0.75), (1, 0.666667)]
    assert sorted(i for i, _ in scored(texts, "cake -ale")) == [2, 3]
    assert [i for i, _ in scored(texts, '"brown fox"')] == [1]
    assert scored(texts, '"fox brown"') == []
    assert [i for i, _ in scored(texts, "cafe")] == [4]
    assert scored(texts, "cafe", **{"$diacriticSensitive": True}) == []
    assert scored(texts, "the and") == []


def test_count_aggregate_and_writes(texts):
    q = {"$text": {"$search": "cake"}}
    assert texts.count_documents(q) == 3
    got = list(texts.aggregate([{"$match": q}, {"$sort": {"_id": 1}}, {"$project": {"_id": 1}}]))
    assert got == [{"_id": 1}, {"_id": 2}, {"_id": 3}]
    assert texts.update_many(q, {"$set": {"c": True}}).modified_count == 3
    texts.update_one({"_id": 2}, {"$set": {"title": "pies", "body": "apple pie"}})
    assert [d["_id"] for d in texts.find(q).sort("_id", 1)] == [1, 3]
    assert texts.delete_many({"$text": {"$search": "pie"}}).deleted_count == 1
    assert texts.count_documents({}) == 4


def test_aggregate_text_score(texts):
    pipeline = [{"$match": {"$text": {"$search": "cakes"}}},
                {"$sort": {"score": SCORE, "_id": 1}},
                {"$project": {"score": SCORE}}]
    assert list(texts.aggregate(pipeline)) == [
        {"_id": 2, "score": 10.0}, {"_id": 1, "score": 7.5}, {"_id": 3, "score": 1.53125}]
    with pytest.raises(OperationFailure) as exc:
        list(texts.aggregate([{"$project": {"score": SCORE}}]))
    assert_op_failure(exc, 40218)


def test_explain_text_match(texts):
    plan = texts.find({"$text": {"$search": "cake fox"}}).explain()["queryPlanner"]["winningPlan"]
    assert plan["stage"] == "TEXT_MATCH"
    assert plan["parsedTextQuery"]["terms"] == ["cake", "fox"]
    assert find_stage(plan, "TEXT_OR") and find_stage(plan, "IXSCAN")


def test_text_errors(coll, texts):
    with pytest.raises(OperationFailure) as exc:
        list(texts.find({}).sort([("s", SCORE)]))
    assert_op_failure(exc, 40218)
    with pytest.raises(OperationFailure) as exc:
        list(texts.find({"$and": [{"$text": {"$search": "a"}}, {"$text": {"$search": "b"}}]}))
    assert_op_failure(exc, 2, "BadValue")
    with pytest.raises(OperationFailure) as exc:
        list(texts.aggregate([{"$sort": {"_id": 1}}, {"$match": {"$text": {"$search": "cake"}}}]))
    assert_op_failure(exc, 17313)
    with pytest.raises(OperationFailure) as exc:
        list(texts.find({}).hint("title_text_body_text"))
    assert_op_failure(exc, 2, "BadValue")
    other = coll.database["no_text_index"]
    other.insert_one({"a": "cake"})
    with pytest.raises(OperationFailure) as exc:
        list(other.find({"$text": {"$search": "cake"}}))
    assert_op_failure(exc, 27, "IndexNotFound")


def test_text_through_router(sharded_cluster):
    """An unsharded collection: the router forwards $text unchanged."""
    c = MongoClient(sharded_cluster.uri, serverSelectionTimeoutMS=10000)
    try:
        coll = c["text_routed"]["docs"]
        coll.drop()
        coll.insert_many(DOCS)
        coll.create_index([("title", TEXT), ("body", TEXT)], weights={"title": 10})
        assert scored(coll, "cakes") == [(2, 10.0), (1, 7.5), (3, 1.53125)]
        assert coll.count_documents({"$text": {"$search": "fox"}}) == 1
        c.drop_database("text_routed")
    finally:
        c.close()


def test_text_on_sharded_collection(sharded_cluster):
    """Every shard holds the text index: $text finds, counts and updates
    across shards; a find sorted by textScore merges the shards' scores;
    a pipeline sorting by it across shards is refused (40218) rather than
    returned in the wrong order."""
    c = MongoClient(sharded_cluster.uri, serverSelectionTimeoutMS=10000)
    try:
        c.admin.command("enableSharding", "text_sharded")
        c.admin.command("shardCollection", "text_sharded.d", key={"_id": "hashed"})
        coll = c["text_sharded"]["d"]
        coll.insert_many([{"_id": i, "t": ("cake " * (i % 4)) + "x%d" % i if i % 2 else "bread"} for i in range(20)])
        coll.create_index([("t", TEXT)])
        q = {"$text": {"$search": "cakes"}}
        assert sorted(d["_id"] for d in coll.find(q)) == list(range(1, 20, 2))
        assert coll.count_documents(q) == 10
        # "cake x1" scores 0.75, "cake cake cake x3" 1.75 * 0.875.
        want = sorted(((1.53125 if i % 4 == 3 else 0.75), i) for i in range(1, 20, 2))
        assert {d["s"] for d in coll.find(q, {"s": SCORE})} == {0.75, 1.53125}
        got = [(d["s"], d["_id"]) for d in coll.find(q, {"s": SCORE}).sort([("s", SCORE)])]
        assert [s for s, _ in got] == [s for s, _ in reversed(want)]
        assert sorted(got) == want
        plain = list(coll.find(q, {"t": 1}).sort([("s", SCORE)]).limit(3))
        assert len(plain) == 3 and all(set(d) == {"_id", "t"} and d["t"].startswith("cake cake cake") for d in plain)
        assert coll.update_many(q, {"$set": {"x": 1}}).modified_count == 10
        with pytest.raises(OperationFailure) as exc:
            list(coll.aggregate([{"$match": q}, {"$sort": {"s": SCORE}}]))
        assert_op_failure(exc, 40218)
    finally:
        c.drop_database("text_sharded")
        c.close()
