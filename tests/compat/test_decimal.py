"""Decimal128 arithmetic is exact, as MongoDB's (IEEE 754-2008 decimal128:
34 digits, rounding half-even, overflow to Infinity), through find, update
and aggregate, on a server and through a router (unsharded and hashed
sharded collections). A double meeting a decimal converts to 15
significant digits, as MongoDB's Decimal128(double)."""

import pytest
from bson import Decimal128, Int64
from pymongo import MongoClient
from pymongo.errors import OperationFailure

from compat_helpers import assert_op_failure

D = Decimal128


def same(got, want):
    """Decimal128 equality is by representation: "0.3" is not "0.30"."""
    assert isinstance(got, Decimal128), (got, want)
    assert str(got) == want, (str(got), want)


def project(coll, doc, expr):
    coll.delete_many({})
    coll.insert_one(doc)
    return list(coll.aggregate([{"$project": {"_id": 0, "r": expr}}]))[0]["r"]


@pytest.mark.parametrize("expr,want", [
    ({"$add": ["$a", "$b"]}, "0.3"),
    ({"$subtract": ["$b", "$a"]}, "0.1"),
    ({"$multiply": ["$a", "$b"]}, "0.02"),
    ({"$divide": ["$a", "$b"]}, "0.5"),
    ({"$divide": [D("1"), D("3")]}, "0.3333333333333333333333333333333333"),
    ({"$divide": [D("2"), D("3")]}, "0.6666666666666666666666666666666667"),
    ({"$multiply": [D("9E+6144"), 10]}, "Infinity"),
    ({"$add": [D("1E+33"), D("0.5")]}, "1000000000000000000000000000000000"),
    ({"$add": ["$a", 0.2]}, "0.300000000000000"),
    ({"$add": ["$a", Int64(9223372036854775807)]}, "9223372036854775807.1"),
    ({"$mod": [D("-7.5"), 2]}, "-1.5"),
    ({"$abs": D("-2.50")}, "2.50"),
    ({"$ceil": D("-1.5")}, "-1"),
    ({"$floor": D("-1.5")}, "-2"),
    ({"$round": [D("2.5"), 0]}, "2"),
    ({"$round": [D("1.255"), 2]}, "1.26"),
    ({"$trunc": [D("-1.259"), 2]}, "-1.25"),
    ({"$sqrt": D("2")}, "1.414213562373095048801688724209698"),
    ({"$sqrt": D("0.01")}, "0.1"),
    ({"$pow": [D("1.1"), 2]}, "1.21"),
    ({"$exp": D("1")}, "2.718281828459045235360287471352662"),
    ({"$ln": D("1")}, "0"),
    ({"$log10": D("1000")}, "3"),
    ({"$toDecimal": "12345678901234567890.1234567890123"}, "12345678901234567890.1234567890123"),
    ({"$toDecimal": 2.5}, "2.50000000000000"),
    ({"$toDecimal": "1.10"}, "1.10"),
    ({"$round": [D("1.5"), 2]}, "1.50"),
    ({"$trunc": [D("-1.259"), 1]}, "-1.2"),
    ({"$add": [0.5, D("1")]}, "1.500000000000000000000000000000000"),
    ({"$multiply": [0.5, D("2")]}, "1.000000000000000"),
])
def test_expression_arithmetic(coll, expr, want):
    same(project(coll, {"a": D("0.1"), "b": D("0.2")}, expr), want)


def test_expression_errors(coll):
    coll.insert_one({"a": D("1")})
    for expr, code in [({"$divide": ["$a", D("0.00")]}, 2),
                       ({"$mod": ["$a", D("0")]}, 5733415),
                       ({"$mod": [1, 0]}, 16610),
                       ({"$sqrt": D("-1")}, 28714),
                       ({"$ln": D("0")}, 28766)]:
        with pytest.raises(OperationFailure) as exc:
            list(coll.aggregate([{"$project": {"r": expr}}]))
        assert_op_failure(exc, code)


def test_group_sum_avg_exact(coll):
    coll.insert_many([{"g": 1, "v": D("0.1")} for _ in range(10)] +
                     [{"g": 2, "v": D("1")}, {"g": 2, "v": D("2")}, {"g": 2, "v": 1}, {"g": 2, "v": "x"}])
    got = {d["_id"]: d for d in coll.aggregate([
        {"$group": {"_id": "$g", "s": {"$sum": "$v"}, "a": {"$avg": "$v"}}}])}
    same(got[1]["s"], "1.0")
    same(got[1]["a"], "0.1")
    same(got[2]["s"], "4")
    same(got[2]["a"], "1.333333333333333333333333333333333")


def test_find_compares_exactly(coll):
    coll.insert_many([{"_id": 1, "v": D("0.1")}, {"_id": 2, "v": D("0.5")},
                      {"_id": 3, "v": D("3.00")}, {"_id": 4, "v": 0.1}])
    # 0.1 the double is 0.1000000000000000055511151231257827...: only
    # itself matches it; 0.5 and 3 are exact in both types.
    assert [d["_id"] for d in coll.find({"v": 0.1})] == [4]
    assert [d["_id"] for d in coll.find({"v": D("0.1")})] == [1]
    assert [d["_id"] for d in coll.find({"v": 0.5})] == [2]
    assert [d["_id"] for d in coll.find({"v": 3})] == [3]
    assert [d["_id"] for d in coll.find({"v": {"$gt": D("0.1"), "$lt": 1}})] == [2, 4]
    coll.insert_many([{"_id": 5, "v": D("9223372036854775807.9")}, {"_id": 6, "v": D("1E+30")}])
    assert [d["_id"] for d in coll.find({"v": {"$mod": [2, 1]}})] == [3, 5]


def test_update_inc_mul_exact(coll):
    coll.insert_one({"_id": 1, "v": D("0"), "m": D("1.1")})
    for _ in range(3):
        coll.update_one({"_id": 1}, {"$inc": {"v": D("0.1")}})
    coll.update_one({"_id": 1}, {"$mul": {"m": D("1.1")}})
    doc = coll.find_one({"_id": 1})
    same(doc["v"], "0.3")
    same(doc["m"], "1.21")
    assert coll.count_documents({"v": D("0.3")}) == 1

    coll.update_one({"_id": 1}, {"$inc": {"v": 1}, "$mul": {"m": 0.5, "new": D("2.5")}})
    doc = coll.find_one({"_id": 1})
    same(doc["v"], "1.3")
    same(doc["m"], "0.60500000000000000")
    same(doc["new"], "0.0")

    coll.update_one({"_id": 1}, {"$set": {"big": D("9.999999999999999999999999999999999E+6144")}})
    coll.update_one({"_id": 1}, {"$mul": {"big": 10}})
    same(coll.find_one({"_id": 1})["big"], "Infinity")

    got = coll.find_one_and_update({"_id": 1}, {"$inc": {"v": D("-1.3")}}, return_document=True)
    same(got["v"], "0.0")


def test_through_router(sharded_cluster):
    """Unsharded: the router forwards the pipeline and updates unchanged;
    hashed sharded: $sum/$avg partials from both shards merge exactly."""
    c = MongoClient(sharded_cluster.uri, serverSelectionTimeoutMS=10000)
    try:
        db = c["decimal_routed"]
        db.command("dropDatabase")
        plain = db["plain"]
        plain.insert_one({"_id": 1, "a": D("0.1"), "b": D("0.2")})
        r = list(plain.aggregate([{"$project": {"s": {"$add": ["$a", "$b"]},
                                                 "q": {"$divide": [D("1"), D("3")]}}}]))[0]
        same(r["s"], "0.3")
        same(r["q"], "0.3333333333333333333333333333333333")
        plain.update_one({"_id": 1}, {"$inc": {"a": D("0.2")}})
        same(plain.find_one({"_id": 1})["a"], "0.3")

        c.admin.command("enableSharding", "decimal_routed")
        c.admin.command("shardCollection", "decimal_routed.h", key={"k": "hashed"})
        h = db["h"]
        h.insert_many([{"k": i, "v": D("0.1")} for i in range(100)])
        r = list(h.aggregate([{"$group": {"_id": None, "s": {"$sum": "$v"},
                                          "a": {"$avg": "$v"}}}]))[0]
        same(r["s"], "10.0")
        same(r["a"], "0.1")
        c.drop_database("decimal_routed")
    finally:
        c.close()


def test_window_functions_keep_decimals(coll):
    coll.insert_many([{"t": 0, "v": D("0.1")}, {"t": 1, "v": D("0.3")},
                      {"t": 3, "v": D("0.4")}, {"t": 6, "v": 1}])
    got = list(coll.aggregate([
        {"$setWindowFields": {"sortBy": {"t": 1}, "output": {
            "d": {"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}},
            "i": {"$integral": {"input": "$v"}, "window": {"documents": ["unbounded", "current"]}},
            "s": {"$sum": "$v", "window": {"documents": ["unbounded", "current"]}},
            "e": {"$expMovingAvg": {"input": "$v", "N": 2}}}}},
        {"$project": {"_id": 0, "d": 1, "i": 1, "s": 1}}]))
    assert got[0]["d"] is None
    same(got[1]["d"], "0.2")
    same(got[2]["d"], "0.05")
    same(got[3]["i"], "3.0")
    same(got[3]["s"], "1.8")
