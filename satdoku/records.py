"""Record classes without :mod:`dataclasses`, for the modules every one-shot command loads.

``@record`` gives a class of annotated fields what ``@dataclass`` gives it here: an
``__init__`` taking the fields in order, by position or keyword (defaults from the class body;
:func:`factory` for a default made fresh per instance, as ``field(default_factory=...)``), an
optional ``__post_init__`` call, ``__repr__``, ``__eq__`` on the fields (with
``eq=False`` the identity's), and with ``frozen=True`` read-only fields and a hash of them.
:func:`replace` and :func:`field_names` stand for ``dataclasses.replace`` and ``fields``.
Constructing one costs about 2.8x a dataclass's (17 thousand instructions for a Result of four
given fields, against 6 thousand): a few microseconds, paid where records are made per puzzle.

Why: importing :mod:`dataclasses` loads :mod:`inspect` (with ast, dis and tokenize), and each
decorated class compiles its generated methods from source as its module is imported. The 14
records a one-shot ``satdoku dpll`` loads (reading, limits, results, the solver registry) cost
it about 100 million instructions that way, half of its start-up besides the interpreter's own
(issue 29 goal 1, ``tests/test_startup.py``). Here the methods are closures over the field
names: nothing is compiled. Records the one-shot path does not load keep ``@dataclass``.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time either (type checkers see True)
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:
    def dataclass_transform(**_kwargs):  # type: ignore[no-redef]
        return lambda function: function

_MISSING = object()


class FrozenRecordError(AttributeError):
    """A field of a frozen record was assigned or deleted."""


class _Factory:
    """A default made by calling ``make`` for each new instance."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


def factory(make: Callable[[], T]) -> T:
    """A field's default made fresh for every instance (``factory(list)``, ``factory(dict)``)."""
    return _Factory(make)  # type: ignore[return-value]


def _is_class_var(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


@dataclass_transform(field_specifiers=(factory,))
def record(cls: type | None = None, *, frozen: bool = False, eq: bool = True) -> Any:
    """Make ``cls`` a record of its annotated fields (``@record`` or ``@record(frozen=True)``)."""

    def wrap(cls: type) -> type:
        # the class's own annotations (inspect.get_annotations would import inspect)
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        names = tuple(name for name, annotation in own.items() if not _is_class_var(annotation))
        defaults: dict[str, object] = {}
        for name in names:
            value = cls.__dict__.get(name, _MISSING)
            if value is _MISSING:
                if defaults:
                    raise TypeError(f"{cls.__name__}: field {name!r} without a default follows "
                                    "one with a default")
                continue
            defaults[name] = value
            if isinstance(value, _Factory):
                delattr(cls, name)  # as dataclasses: no class attribute for a factory default
        _install(cls, names, defaults, frozen, eq)
        return cls

    return wrap if cls is None else wrap(cls)


def _install(cls: type, names: tuple[str, ...], defaults: dict[str, object], frozen: bool,
             eq: bool) -> None:
    count = len(names)
    index = {name: i for i, name in enumerate(names)}
    known = frozenset(names)
    plain = {name: value for name, value in defaults.items() if not isinstance(value, _Factory)}
    required = count - len(defaults)  # the fields without a default come first
    made = tuple((name, value.make) for name, value in defaults.items()
                 if isinstance(value, _Factory))
    post_init = getattr(cls, "__post_init__", None) is not None
    title = cls.__name__

    def __init__(self: Any, *args: object, **kwargs: object) -> None:
        given = len(args)
        if given > count:
            raise TypeError(f"{title}() takes {count} positional arguments but {given} were "
                            "given")
        values = self.__dict__
        values.update(plain)  # every default first (as a dataclass stores them), then the given
        values.update(zip(names, args, strict=False))  # given <= count
        if kwargs:  # checked as sets (in C); a wrong key is named on the slow path
            if not kwargs.keys() <= known or (given and not kwargs.keys().isdisjoint(
                    names[:given])):  # fmt: skip
                _bad_keywords(title, kwargs, index, given)
            values.update(kwargs)
        for name, make in made:
            if name not in values:  # a factory default is made only when not given
                values[name] = make()
        if given < required:
            for name in names[given:required]:
                if name not in kwargs:
                    raise TypeError(f"{title}() missing required argument: {name!r}")
        if post_init:
            self.__post_init__()

    def __repr__(self: Any) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({fields})"

    def _values(self: Any) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in names)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _values(self) == _values(other)

    def __setattr__(self: Any, name: str, value: object) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {title}")

    def __delattr__(self: Any, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r} of a frozen {title}")

    methods: dict[str, object] = {"__init__": __init__, "__repr__": __repr__}
    if eq:
        methods["__eq__"] = __eq__
        methods["__hash__"] = (lambda self: hash(_values(self))) if frozen else None
    if frozen:
        methods["__setattr__"], methods["__delattr__"] = __setattr__, __delattr__
    for name, method in methods.items():
        if callable(method):
            method.__qualname__ = f"{cls.__qualname__}.{name}"  # type: ignore[attr-defined]
        setattr(cls, name, method)
    cls.__record_fields__ = names  # type: ignore[attr-defined]
    cls.__match_args__ = names  # type: ignore[attr-defined]


def _bad_keywords(title: str, kwargs: dict[str, object], index: dict[str, int],
                  given: int) -> None:
    for key in kwargs:
        at = index.get(key, -1)
        if at < 0:
            raise TypeError(f"{title}() got an unexpected keyword argument {key!r}")
        if at < given:
            raise TypeError(f"{title}() got multiple values for argument {key!r}")


def field_names(record_or_class: object) -> tuple[str, ...]:
    """The fields of a record (or record class), in order."""
    return record_or_class.__record_fields__  # type: ignore[attr-defined, no-any-return]


def replace(obj: T, **changes: object) -> T:
    """A new record like ``obj`` with ``changes`` (``__post_init__`` checks it again)."""
    values = as_dict(obj)
    unknown = sorted(set(changes) - set(values))
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field(s) {', '.join(unknown)}")
    return type(obj)(**{**values, **changes})


def as_dict(obj: object) -> dict[str, Any]:
    """A record's fields and values, in order (not recursive)."""
    return {name: getattr(obj, name) for name in field_names(obj)}
