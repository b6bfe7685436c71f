"""Assertions shared by the compat tests."""

from pymongo.errors import OperationFailure


def assert_ping(client):
    """The server still answers after whatever the test did."""
    assert client.admin.command("ping")["ok"] == 1


def assert_op_failure(exc_info, code, code_name=None):
    """exc_info: a pytest.raises context for an OperationFailure."""
    exc = exc_info.value
    assert isinstance(exc, OperationFailure), exc
    assert exc.code == code, (exc.code, exc.details)
    if code_name is not None:
        details = exc.details or {}
        # Write errors carry no codeName; command errors must.
        if "codeName" in details:
            assert details["codeName"] == code_name, details


def find_stage(plan, name):
    """True if a stage called name appears anywhere in an explain tree."""
    if isinstance(plan, dict):
        if plan.get("stage") == name:
            return True
        return any(find_stage(v, name) for v in plan.values())
    if isinstance(plan, (list, tuple)):
        return any(find_stage(v, name) for v in plan)
    return False


