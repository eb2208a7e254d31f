"""satdoku.records against dataclasses: the same class body gives the same construction,
defaults, repr, equality, hashing and read-only fields, and replace re-checks."""

from __future__ import annotations

import dataclasses
import pickle
from typing import ClassVar

import pytest

from satdoku.records import FrozenRecordError, as_dict, factory, field_names, record, replace


@record
class Mutable:
    name: str
    count: int = 0
    tags: list[str] = factory(list)
    KIND: ClassVar[str] = "not a field"


@dataclasses.dataclass
class MutableDC:
    name: str
    count: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)
    KIND: ClassVar[str] = "not a field"


@record(frozen=True)
class Limits:
    low: float
    high: float = 10.0

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@record(frozen=True, eq=False)
class Identity:
    data: bytes


@pytest.mark.parametrize("args, kwargs", [(("a",), {}), (("a", 3), {}), ((), {"name": "b"}),
                                          (("c",), {"tags": ["x"]}), (("d", 1, ["y"]), {})])
def test_construction_and_repr_match_dataclasses(args: tuple, kwargs: dict) -> None:  # type: ignore[type-arg]
    ours, theirs = Mutable(*args, **kwargs), MutableDC(*args, **kwargs)
    assert repr(ours).replace("Mutable(", "") == repr(theirs).replace("MutableDC(", "")
    assert as_dict(ours) == dataclasses.asdict(theirs)
    assert field_names(Mutable) == tuple(f.name for f in dataclasses.fields(MutableDC))


def test_factory_defaults_are_fresh_and_class_vars_are_not_fields() -> None:
    a, b = Mutable("a"), Mutable("b")
    a.tags.append("x")
    assert b.tags == [] and "tags" not in Mutable.__dict__
    assert Mutable.KIND == "not a field" and "KIND" not in field_names(Mutable)


@pytest.mark.parametrize("call, message", [
    (lambda: Mutable(), "missing required argument: 'name'"),
    (lambda: Mutable("a", 1, [], 4), "takes 3 positional arguments but 4 were given"),
    (lambda: Mutable("a", name="b"), "multiple values for argument 'name'"),
    (lambda: Mutable("a", size=1), "unexpected keyword argument 'size'"),
])
def test_bad_arguments_are_type_errors(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match=message):
        call()


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default"):
        @record
        class Bad:
            a: int = 0
            b: int


def test_equality_and_hashing() -> None:
    assert Mutable("a", 1) == Mutable("a", 1) != Mutable("a", 2)
    assert Mutable("a") != MutableDC("a")  # another class is never equal
    assert Mutable.__hash__ is None  # mutable with eq: unhashable, as a dataclass
    assert hash(Limits(1.0)) == hash(Limits(1.0, 10.0)) and Limits(1.0) == Limits(1.0, 10.0)
    assert Identity(b"x") != Identity(b"x")  # eq=False: identity
    assert len({Identity(b"x"), Identity(b"x")}) == 2


def test_frozen_fields_are_read_only_and_replace_checks_again() -> None:
    limits = Limits(1.0)
    with pytest.raises(FrozenRecordError):
        limits.low = 2.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del limits.high  # type: ignore[misc]
    assert replace(limits, high=5.0) == Limits(1.0, 5.0)
    with pytest.raises(ValueError, match="low above high"):
        replace(limits, low=20.0)
    with pytest.raises(TypeError, match="no field"):
        replace(limits, middle=3.0)


def test_records_pickle() -> None:
    for value in (Mutable("a", 2, ["t"]), Limits(1.0, 2.0)):
        assert pickle.loads(pickle.dumps(value)) == value


def test_vars_lists_every_field_as_a_dataclass_does() -> None:
    assert vars(Mutable("a")) == vars(MutableDC("a"))
