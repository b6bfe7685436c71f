"""Geospatial through pymongo: create_index with GEOSPHERE and GEO2D,
$near nearest first, $geoWithin a polygon, $geoIntersects, the $geoNear
stage, explain, errors, and the same queries through a router."""

import pytest
from pymongo import GEO2D, GEOSPHERE, MongoClient
from pymongo.errors import OperationFailure, WriteError

from compat_helpers import assert_op_failure, find_stage


def point(x, y):
    return {"type": "Point", "coordinates": [x, y]}


def square(x, y, side):
    return {"type": "Polygon", "coordinates": [[[x, y], [x + side, y], [x + side, y + side], [x, y + side], [x, y]]]}


DOCS = [{"_id": i, "loc": point(i, 0), "odd": i % 2} for i in range(10)] + [{"_id": 100, "loc": square(20, 20, 1)}]


@pytest.fixture
def places(coll):
    coll.insert_many(DOCS)
    assert coll.create_index([("loc", GEOSPHERE)]) == "loc_2dsphere"
    return coll


def ids(cursor):
    return [d["_id"] for d in cursor]


def test_index_spec(places):
    info = places.index_information()["loc_2dsphere"]
    assert info["key"] == [("loc", "2dsphere")]
    assert info["2dsphereIndexVersion"] == 3


def test_near_nearest_first(places):
    near = {"$near": {"$geometry": point(4.2, 0)}}
    assert ids(places.find({"loc": near})) == [4, 5, 3, 6, 2, 7, 1, 8, 0, 9, 100]
    bounded = {"$near": {"$geometry": point(0, 0), "$maxDistance": 250000}}
    assert ids(places.find({"loc": bounded})) == [0, 1, 2]
    assert ids(places.find({"loc": bounded, "odd": 1})) == [1]


def test_near_sphere_legacy_radians(places):
    q = {"loc": {"$nearSphere": [9, 0], "$minDistance": 0.05, "$maxDistance": 0.09}}
    assert ids(places.find(q)) == [6, 5, 4]


def test_within_polygon(places):
    q = {"loc": {"$geoWithin": {"$geometry": square(1.5, -1, 2)}}}
    assert sorted(ids(places.find(q))) == [2, 3]
    assert find_stage(places.find(q).explain()["queryPlanner"]["winningPlan"], "IXSCAN")
    assert places.count_documents({"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.03]}}}) == 2


def test_intersects(places):
    line = {"type": "LineString", "coordinates": [[20.5, 19], [20.5, 22]]}
    assert ids(places.find({"loc": {"$geoIntersects": {"$geometry": line}}})) == [100]


def test_geo_near_stage(places):
    out = list(places.aggregate([
        {"$geoNear": {"near": point(0, 0), "distanceField": "dist", "maxDistance": 250000,
                      "query": {"odd": 0}, "includeLocs": "where"}},
    ]))
    assert [d["_id"] for d in out] == [0, 2]
    assert out[0]["dist"] == 0
    assert abs(out[1]["dist"] - 222639) < 50
    assert out[1]["where"] == point(2, 0)


def test_explain_geo_near(places):
    plan = places.find({"loc": {"$near": {"$geometry": point(0, 0), "$maxDistance": 1000}}}).explain()
    assert find_stage(plan["queryPlanner"]["winningPlan"], "GEO_NEAR_2DSPHERE")


def test_errors(coll):
    coll.insert_one({"loc": [0, 0]})
    with pytest.raises(OperationFailure) as exc:
        list(coll.find({"loc": {"$near": [0, 0]}}))
    assert_op_failure(exc, 2)
    with pytest.raises(OperationFailure) as exc:
        list(coll.aggregate([{"$geoNear": {"near": [0, 0], "distanceField": "d"}}]))
    assert_op_failure(exc, 27, "IndexNotFound")
    coll.create_index([("loc", GEOSPHERE)])
    with pytest.raises(WriteError) as exc:
        coll.insert_one({"loc": point(200, 0)})
    assert exc.value.code == 16755


def test_2d_index(coll):
    coll.insert_many([{"_id": i, "p": [i, i]} for i in range(5)])
    assert coll.create_index([("p", GEO2D)]) == "p_2d"
    assert ids(coll.find({"p": {"$near": [2.9, 3], "$maxDistance": 1.4}})) == [3, 2]
    assert sorted(ids(coll.find({"p": {"$geoWithin": {"$box": [[0, 0], [1.5, 1.5]]}}}))) == [0, 1]
    assert sorted(ids(coll.find({"p": {"$geoWithin": {"$center": [[0, 0], 1.5]}}}))) == [0, 1]


def test_geo_through_router(sharded_cluster):
    """An unsharded collection: the router forwards geo queries unchanged."""
    c = MongoClient(sharded_cluster.uri, serverSelectionTimeoutMS=10000)
    try:
        coll = c.compat_geo.places
        coll.drop()
        coll.insert_many(DOCS)
        coll.create_index([("loc", GEOSPHERE)])
        assert ids(coll.find({"loc": {"$near": {"$geometry": point(0, 0), "$maxDistance": 250000}}})) == [0, 1, 2]
        out = list(coll.aggregate([{"$geoNear": {"near": point(9, 0), "distanceField": "d"}}, {"$limit": 2}]))
        assert [d["_id"] for d in out] == [9, 8]
        coll.drop()
    finally:
        c.close()


def test_geo_sharded(sharded_cluster):
    """A hashed-sharded collection: each shard answers nearest first and
    the router merges by distance ($near) or distanceField ($geoNear)."""
    c = MongoClient(sharded_cluster.uri, serverSelectionTimeoutMS=10000)
    try:
        c.compat_geo.sharded.drop()
        c.admin.command("shardCollection", "compat_geo.sharded", key={"_id": "hashed"})
        coll = c.compat_geo.sharded
        coll.insert_many(DOCS)
        coll.create_index([("loc", GEOSPHERE)])
        want = [4, 5, 3, 6, 2, 7, 1, 8, 0, 9, 100]
        assert ids(coll.find({"loc": {"$near": {"$geometry": point(4.2, 0)}}})) == want
        assert ids(coll.find({"loc": {"$near": {"$geometry": point(4.2, 0)}}}, {"loc": 0})) == want
        out = list(coll.aggregate([{"$geoNear": {"near": point(4.2, 0), "distanceField": "d"}}]))
        assert [d["_id"] for d in out] == want
        assert ids(coll.find({"loc": {"$near": {"$geometry": point(4.2, 0)}}}, {"loc": 0}))[:1] == [4]
        assert "loc" not in coll.find_one({"loc": {"$near": {"$geometry": point(0, 0)}}}, {"loc": 0})
        coll.drop()
    finally:
        c.close()
