"""Every fast path of the stage files gives exactly what the general path gives.

The workflow's per-puzzle work goes through quick readers and writers for the common shapes
(unit-clause bundle blocks, solver models listing variables 1..n in order, TSV rows without
quoting, one value per cell). Each is compared here, on random inputs, with the general code
it stands in for: the same result, or the same refusal.
"""

from __future__ import annotations

import csv
import io
import os
import random
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from satdoku.cnf import decode, dimacs
from satdoku.cnf.dimacs import DimacsError, parse_dimacs
from satdoku.stagefiles import bundles, tsv
from satdoku.stagefiles.families import family

EXAMPLES = int(os.environ.get("SATDOKU_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def _outcome(fn, *args):  # type: ignore[no-untyped-def]
    """A function's result, or the type and text of the error it raised."""
    try:
        return fn(*args)
    except Exception as exc:  # the general path's refusal is part of its answer
        return (type(exc).__name__, str(exc))


# --- SatInput: unit-clause instance blocks --------------------------------------------------
_TOKENS = ["0", "0", "0", "1", "5", "-5", "12", "-729", "729", "730", "-731", "+5", "05", "-0",
           "x", "c", "%", "p", "1_0", "\u0665", "5\u00a00"]


@st.composite
def _instance_body(draw: st.DrawFn) -> list[str]:
    """An instance block's lines: mostly well-formed unit clauses, often broken somewhere."""
    num_vars = draw(st.sampled_from([729, 729, 10, 1000, 0]))
    lits = draw(st.lists(st.integers(1, num_vars or 1) .map(lambda v: v)
                         .flatmap(lambda v: st.sampled_from([v, -v])), max_size=30))
    lines = [f"{lit} 0" for lit in lits]
    body = ["c id 1 set s line 2 kind sudoku size 9 encoding extended rules r",
            f"p cnf {num_vars} {len(lines) + draw(st.sampled_from([0, 0, 0, 1, 11745]))}",
            *lines]
    for _ in range(draw(st.integers(0, 3))):  # damage: a token, a line, a header
        where = draw(st.integers(0, len(body)))
        kind = draw(st.integers(0, 5))
        if kind == 0:
            body.insert(where, " ".join(draw(st.lists(st.sampled_from(_TOKENS), max_size=4))))
        elif kind == 1 and len(body) > 2:
            del body[draw(st.integers(2, len(body) - 1))]
        elif kind == 2:
            body[1] = draw(st.sampled_from(["p cnf 729", "p cnf 729 3 4", "p cnf \u0667 1",
                                            "p cnf -1 2", "p  cnf 729 1", "c p cnf 1 1"]))
        elif kind == 3:
            body[0] = draw(st.sampled_from(["c", "p cnf 1 1", "", "c  id 1"]))
        elif kind == 4 and len(body) > 2:  # join two clause lines, or split one
            i = draw(st.integers(2, len(body) - 1))
            body[i:i + 2] = [" ".join(body[i:i + 2])]
        elif kind == 5:
            body.append(draw(st.sampled_from(["", "   ", "c comment", "%", "0"])))
    return body


def _general_own(body: list[str], shared: int) -> tuple[int, int, list[list[int]]]:
    """What read_bundle makes of an instance block (on ``shared`` rules clauses) without the
    unit-clause fast path."""
    own = bundles._own_clauses(body) or parse_dimacs(body, "where", clause_tolerance=shared)
    return own.num_vars, bundles._declared(body), own.clauses


@FUZZ
@given(_instance_body())
def test_unit_clause_blocks_read_as_the_general_reader_reads_them(body: list[str]) -> None:
    quick = bundles._unit_clauses(body)
    if quick is not None and quick[1] >= len(quick[2]):  # read_bundle uses it when the count
        shared = quick[1] - len(quick[2])  # matches its rules: the same formula either way
        assert quick == _general_own(body, shared)


def test_unit_clause_fast_path_takes_what_encode_writes() -> None:
    body = ["c id 3 set s line 4", "p cnf 729 11748", "5 0", "-17 0", "729 0"]
    assert bundles._unit_clauses(body) == (729, 11748, [[5], [-17], [729]])
    assert bundles._unit_clauses(["c x", "p cnf 729 11745"]) == (729, 11745, [])
    for bad in (["c x", "p cnf 729 3", "+5 0"], ["c x", "p cnf 729 3", "5 6 0"],
                ["c x", "p cnf 9 3", "10 0"], ["c x", "p cnf 9 3", "5"],
                ["c x", "p cnf 729 2", "5\xa00 5\xa00"]):  # a no-break space is no DIMACS space
        assert bundles._unit_clauses(bad) is None
    assert bundles._own_clauses(["c x", "p cnf 9 1", "\uff15 0"]) is None  # a fullwidth 5


@st.composite
def _bundle_text(draw: st.DrawFn) -> str:
    """A bundle: a rules block, then instance blocks (valid, invalid or damaged)."""
    lines = ["c satdoku bundle set s encoding extended", "c rules r", "p cnf 729 2", "1 2 0",
             "-3 0"]
    for ident in range(1, draw(st.integers(1, 6)) + 1):
        if draw(st.integers(0, 6)) == 0:
            lines += [f"c instance {ident}", "c invalid 80 cells is not a Sudoku size",
                      f"c id {ident} set s line {ident}"]
            continue
        body = draw(_instance_body())
        if body and body[0].startswith("c id"):
            body[0] = body[0].replace("rules r", draw(st.sampled_from(["rules r", "rules -",
                                                                       "rules q"])))
        lines += [f"c instance {ident}", *body]
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


def _entries(path: str) -> list[tuple]:
    out = []
    for e in bundles.read_bundle(path):
        rules = None if e.rules is None else (e.rules.num_vars, e.rules.clauses)
        out.append((e.id, e.header, e.invalid, rules, e.own, e.num_vars, e.comments))
    return out


@FUZZ
@given(_bundle_text())
def test_read_bundle_equals_its_general_path(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("b") / "b.cnfs"
    path.write_text(text, encoding="utf-8")
    fast = _outcome(_entries, str(path))
    real = bundles._unit_clauses
    bundles._unit_clauses = lambda body: None  # type: ignore[assignment]
    try:
        general = _outcome(_entries, str(path))
    finally:
        bundles._unit_clauses = real
    assert fast == general


def test_read_bundle_reads_lines_across_its_read_batches(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lines = ["c rules r", "p cnf 729 1", "1 2 0"]
    for i in range(1, 400):
        lines += [f"c instance {i}", f"c id {i} set s line {i} rules r", "p cnf 729 3",
                  f"{i} 0", f"-{i + 1} 0"]
    path = tmp_path / "b.cnfs"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with bundles.open_text(path) as fh:  # tiny batches: every line boundary case is met
        assert [x for b in bundles._line_batches(fh, size=7) for x in b] == lines
    entries = list(bundles.read_bundle(path))
    assert [e.id for e in entries] == [str(i) for i in range(1, 400)]
    assert entries[-1].own == [[399], [-400]]


def test_read_bundle_counts_lines_for_its_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "b.cnfs"
    path.write_text("c rules r\np cnf 9 1\n1 0\nc instance 1\nc id 1 rules r\np cnf 9 5\n2 0\n")
    with pytest.raises(DimacsError, match=r"b.cnfs:4: instance 1: clause count mismatch"):
        list(bundles.read_bundle(path))


# --- SatOutput: v lines of a model listing variables 1..n in order ----------------------------
_general_v_lines = dimacs.v_lines_python


@st.composite
def _models(draw: st.DrawFn) -> list[int]:
    n = draw(st.sampled_from([1, 2, 19, 20, 21, 40, 81, 729]))
    signs = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    model = [v if s else -v for v, s in zip(range(1, n + 1), signs, strict=True)]
    change = draw(st.integers(0, 6))
    if change == 1:
        model = draw(st.permutations(model))
    elif change == 2:
        model.append(draw(st.sampled_from([n + 1, -(n + 1), 1, -1])))
    elif change == 3 and n > 1:
        model.pop(draw(st.integers(0, n - 1)))
    elif change == 4:
        model[draw(st.integers(0, n - 1))] = draw(st.sampled_from([-model[0], 2 * n, -2 * n]))
    return model


@FUZZ
@given(_models())
def test_v_lines_equal_the_plain_writer(model: list[int]) -> None:
    assert _outcome(dimacs.v_lines, model) == _outcome(_general_v_lines, model)


@FUZZ
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=70))
def test_v_lines_of_any_int64_literals(model: list[int]) -> None:
    assert dimacs.v_lines(model) == _general_v_lines(model)


def test_v_lines_refuse_what_is_not_a_literal() -> None:
    with pytest.raises(OverflowError):
        dimacs.v_lines([2**64])
    with pytest.raises(TypeError):
        dimacs.v_lines(["x"])  # type: ignore[list-item]
    assert dimacs.v_lines((1, -2)) == "v 1 -2 0\n"  # any sequence of ints


def test_v_lines_of_a_sudoku_model() -> None:
    rng = random.Random(3)
    board = [rng.randint(1, 9) for _ in range(81)]
    model = [v if (v - 1) % 9 + 1 == board[(v - 1) // 9] else -v for v in range(1, 730)]
    text = dimacs.v_lines(model)
    assert text == _general_v_lines(model)
    assert text.endswith(" 0\n") and text.count("\n") == 37  # 730 tokens, 20 per line
    assert [int(t) for t in text.replace("v", " ").split()] == [*model, 0]


# --- TSV rows ---------------------------------------------------------------------------------
_CELLS = st.one_of(st.none(), st.integers(-5, 10**6),
                   st.text(alphabet='ab 1.-"\t\r\n\u2028\u00e9,;', max_size=12))


@FUZZ
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _CELLS), max_size=8),
       st.sampled_from([("a", "b", "c"), ("a",), ("d", "a", "b", "c")]))
def test_tsv_rows_equal_csv_dictwriter(rows: list[dict], columns: tuple[str, ...]) -> None:
    fast = io.StringIO()
    writer = tsv.TsvWriter(fast, columns)
    for row in rows:
        writer.write(row)
    general = io.StringIO()
    w = csv.DictWriter(general, list(columns), delimiter="\t", lineterminator="\n",
                       extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    assert fast.getvalue() == general.getvalue()
    assert writer.rows == len(rows)


# --- decoding a model with one value per cell -----------------------------------------------
_general_decode = decode.one_value_per_cell_python


@FUZZ
@given(st.data())
def test_one_value_per_cell_decoding(data: st.DataObject) -> None:
    dom, n = data.draw(st.sampled_from([(4, 16), (9, 81), (3, 5)]))
    board = data.draw(st.lists(st.integers(1, dom), min_size=n, max_size=n))
    model = [v if (v - 1) % dom + 1 == board[(v - 1) // dom] else -v
             for v in range(1, n * dom + 1)]
    change = data.draw(st.integers(0, 5))
    if change == 1:
        model = data.draw(st.permutations(model))
    elif change == 2:
        model[data.draw(st.integers(0, len(model) - 1))] *= -1
    elif change == 3:
        model += data.draw(st.lists(st.integers(n * dom + 1, n * dom + 9), max_size=3))
    elif change == 4:
        model.insert(0, data.draw(st.integers(n * dom + 1, n * dom + 9)))
    got = decode._one_value_per_cell(model, dom, n)
    assert got == _general_decode(model, dom, n)
    if change == 0:
        assert got == tuple(board)


# --- CNF sizes of a bundle --------------------------------------------------------------------
@st.composite
def _sizes_bundle(draw: st.DrawFn) -> str:
    """A bundle for the sizes reader: usual blocks, and blocks with comments, several or bad
    ``p`` lines, non-ASCII text, blank lines, missing rules."""
    text = draw(_bundle_text())
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.integers(0, len(lines)))
        lines.insert(where, draw(st.sampled_from(
            ["c comment \u00e9", "p cnf 729 5", "p cnf x 5", "c id 9 kind latin size 4", "",
             "c", "1 -2 0", "\u00e9 0", "c rules q", "p cnf 10 1 extra"])))
    return "\n".join(lines)


def _sizes_by_line(path, encoding: str = "") -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """The CNF sizes of a bundle read the plain way, line by line (the reference)."""
    rows: list[dict[str, object]] = []
    rules_bytes: dict[str, int] = {}
    cur: dict | None = None  # the open block: kind, key, header, p, bytes

    def close(block: dict | None) -> None:
        if block is None:
            return
        if block["kind"] == "rules":
            rules_bytes[block["key"]] = block["bytes"]
        elif block["p"] is not None:
            h = block["header"]
            v, c, pline = block["p"]
            rkey = h.get("rules", "-")
            if rkey != "-" and rkey not in rules_bytes:
                raise ValueError(f"{path}: instance {block['key']} needs unknown rules {rkey}")
            size = int(h["size"]) if h.get("size", "").isdigit() else None
            rows.append({"id": block["key"], "family": family(h.get("kind"), size),
                         "encoding": h.get("encoding", encoding), "vars": v, "clauses": c,
                         "bytes": pline + rules_bytes.get(rkey, 0) + block["bytes"]})

    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.startswith("c rules ") or line.startswith("c instance "):
                close(cur)
                kind = "rules" if line.startswith("c rules ") else "instance"
                cur = {"kind": kind, "key": line.split(maxsplit=2)[2].strip(), "header": {},
                       "p": None, "bytes": 0}
            elif cur is None:
                continue
            elif line.startswith("p "):
                parts = line.split()
                if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
                    raise ValueError(f"{path}:{n}: bad problem line {line.strip()!r}")
                cur["p"] = (int(parts[2]), int(parts[3]), len(line.encode()))
            elif line.startswith("c "):
                if cur["kind"] == "instance" and not cur["header"] and " id " in f" {line[2:]}":
                    cur["header"] = bundles._parse_header(line[1:])
            else:
                cur["bytes"] += len(line.encode())
        close(cur)
    return rows


@FUZZ
@given(_sizes_bundle(), st.sampled_from(["\n", "", "\r\n"]))
@example("c satdoku bundle set empty encoding extended\n", "\n")  # a set with no instances
def test_bundle_sizes_equal_the_line_by_line_reader(tmp_path_factory, text: str,  # type: ignore[no-untyped-def]
                                                    end: str) -> None:
    path = tmp_path_factory.mktemp("s") / "b.cnfs"
    path.write_bytes((text.rstrip("\n") + end).encode("utf-8"))
    fast = _outcome(lambda: list(bundles.bundle_sizes(path, "extended")))
    general = _outcome(lambda: _sizes_by_line(path, "extended"))
    assert fast == general


# --- TSV reading ------------------------------------------------------------------------------
@FUZZ
@given(st.lists(st.sampled_from(['a', 'b', '\t', '\n', '"', '\r', ' ', '1.5', '', '\u2028', '\0',
                                 'é', 'id\tline\tstatus\n']), max_size=40).map("".join))
def test_read_tsv_equals_csv_dictreader(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("t") / "t.tsv"
    path.write_text(text, encoding="utf-8", newline="")

    def general() -> list[dict]:
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh, delimiter="\t"))

    assert _outcome(tsv.read_tsv, path) == _outcome(general)


_SOLS_ROW = st.fixed_dictionaries({c: st.one_of(st.none(), st.text(
    alphabet='a1 .\t"\r\n', max_size=4)) for c in tsv.SOLS_COLUMNS})


@FUZZ
@given(st.lists(st.lists(_SOLS_ROW, max_size=4), min_size=1, max_size=3),
       st.lists(st.sampled_from(["", "\n", "x\n", "id\tline\n", "\t" * 6 + "\n"]),
                max_size=3))
def test_gather_joins_plain_shards_as_it_rewrites_any(tmp_path_factory, shards: list[list[dict]],  # type: ignore[no-untyped-def]
                                                      tails: list[str]) -> None:
    """Shards as TsvWriter writes them (rows with and without quoting, missing cells), some
    with stray text appended: the joined file and its text file are what reading every row
    and writing it again gives."""
    d = tmp_path_factory.mktemp("g")
    paths = []
    for k, rows in enumerate(shards):
        path = d / f"{k}.tsv"
        tsv.write_tsv(rows, path, tsv.SOLS_COLUMNS)
        if k < len(tails):
            with open(path, "a", encoding="utf-8", newline="") as fh:
                fh.write(tails[k])
        paths.append(path)
    got = _outcome(tsv.gather, paths, d / "out.tsv", "sols", d / "out.txt")
    joined = ((d / "out.tsv").read_bytes(), (d / "out.txt").read_bytes()) \
        if not isinstance(got, tuple) else None
    rows = _outcome(lambda: [r for p in paths for r in tsv.read_tsv(p)])
    if isinstance(rows, tuple):  # the general reader refuses: so does gather
        assert got == rows
        return
    tsv.write_tsv(rows, d / "ref.tsv", tsv.SOLS_COLUMNS)
    with open(d / "ref.txt", "w", encoding="utf-8") as fh:
        fh.writelines(f"{r['solution']}\n" for r in rows)
    assert got == len(rows)
    assert joined == ((d / "ref.tsv").read_bytes(), (d / "ref.txt").read_bytes())


def test_without_the_compiled_pass_the_python_twins_answer(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An install without a C compiler has no satdoku.cnf._dimacs: the same text and board."""
    model = [1, -2, -3, 4, *range(-5, -30, -1)]
    with_c = dimacs.v_lines(model), decode._one_value_per_cell(model, 2, 2)
    monkeypatch.setitem(sys.modules, "satdoku.cnf._dimacs", None)  # import raises ImportError
    assert (dimacs.v_lines(model), decode._one_value_per_cell(model, 2, 2)) == with_c
    assert with_c[1] == (1, 2)


# --- Instances: normalize's fast path for plain one-line files --------------------------------
_SOL = "596783142231594687478612539927136458364875921815249376653927814142368795789451263"
_PUZ = ".9......22..5.46.7..8.....9..7..64.....8......15...3......27....4..6.....89....63"
_EDGES = [  # lines the fast path must take or hand to the general reader, each as it would
    f"{_PUZ},{_SOL}",
    f"{_PUZ.replace('.', '0')},{_SOL}",  # another empty symbol
    f"{_PUZ.replace('.', '-')},",  # no solution given
    f"{_PUZ}",  # no solution cell at all
    f"{_PUZ},{_SOL[:80]}",  # a solution of the wrong length: INVALID
    f"{_PUZ},{_SOL[:-1]}0",  # a solution with an empty cell (kept, as the general reader does)
    f'"{_PUZ}",{_SOL}',  # quoted
    f" {_PUZ},{_SOL}",  # space around the board
    f"{_PUZ[:-1]}x,{_SOL}",  # a bad symbol
    "",
    "# a comment",
    "1.3." * 4 + ",",  # 4x4
    "1G" * 128 + ",",  # 16x16, upper case
    "1g.a" * 64 + ",",  # 16x16, lower case
    f"{_PUZ}\r",  # CRLF
]


def _normalized(tmp_path, text: bytes, name: str, shard_size: int, plain: bool,  # type: ignore[no-untyped-def]
                strict: bool = False) -> list[bytes]:
    from satdoku.pipeline.stage_normalize import normalize

    src = tmp_path / name
    src.write_bytes(text)
    lines = len(text.splitlines())
    out = []
    for shard in range(-(-lines // shard_size)):
        dest = tmp_path / f"{shard}-{plain}.jsonl"
        try:
            normalize(src, dest, shard, shard_size, strict=strict, plain=plain)
        except Exception as exc:  # the general path's refusal is part of its answer
            out.append(f"{type(exc).__name__}: {exc}".encode())
            continue
        out.append(dest.read_bytes())
    return out


@pytest.mark.parametrize("shard_size", [1, 4, 100])
@pytest.mark.parametrize("notation", ["csv", "line"])
def test_plain_instances_equal_the_general_reader(tmp_path, shard_size: int,  # type: ignore[no-untyped-def]
                                                  notation: str) -> None:
    from satdoku.sources import read_snapshot
    from satdoku.stagefiles.plain_instances import plain_shard

    if notation == "csv":
        name, body = "set.csv", ["puzzle,solution", *_EDGES]
    else:
        name, body = "set.txt", [e.split(",")[0] for e in _EDGES] + [f"{_PUZ} a name"]
    text = ("\n".join(body) + "\n").encode() + b"\xff\xfe not text\n" + (_PUZ + "\n").encode()
    fast = _normalized(tmp_path, text, name, shard_size, True)
    assert fast == _normalized(tmp_path, text, name, shard_size, False)
    made = list(plain_shard(read_snapshot(tmp_path / name), "auto", 1, None) or [])
    assert sum(isinstance(m, dict) for m in made) >= 4  # the fast path did make objects
    assert b'"givens":"1G1G' in b"".join(fast)  # lower case written upper case


def test_plain_instances_strict_and_size_limits(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from satdoku.size_limits import SizeLimits, default_size_limits, set_default_size_limits

    text = f"puzzle,solution\n{_PUZ},{_SOL}\n{_PUZ[:-1]}x,{_SOL}\n".encode()
    for plain in (True, False):  # strict: the first bad line stops both, naming it
        assert _normalized(tmp_path, text, "s.csv", 10, plain, strict=True) == [
            f"StrictError: {tmp_path / 's.csv'}:3: symbol 'x' at position 81 means 33, "
            "above 9".encode()]
    before = default_size_limits()
    try:
        set_default_size_limits(SizeLimits(max_cells=80))  # 9x9 too large: INVALID in both
        small = _normalized(tmp_path, text, "s.csv", 10, True)
        assert small == _normalized(tmp_path, text, "s.csv", 10, False)
        assert b"too large: 81 cells" in small[0]
    finally:
        set_default_size_limits(before)


def test_plain_instances_fuzz_target_on_seeded_files() -> None:
    """The fuzz campaign's target (satdoku/fuzz/checks.py) on a few seeded files of both
    notations (the campaign runs it for minutes)."""
    from satdoku.fuzz.checks import plain_file, plain_instances_target

    target = plain_instances_target()
    for seed in range(40):
        rng = random.Random(seed)
        case = plain_file(rng, ("csv", "line")[seed % 2])
        assert target.run(case) is None, (seed, case)
