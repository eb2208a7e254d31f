"""The streaming DIMACS pass (satdoku/cnf/dimacs_stream.py, compiled in _dimacs.c) against its
readable forms (the whole-file Python reader, GBD's hash in Python, the Python model check):
the same literals, counts, hashes and errors, one line each, on good and hostile files, plain
and compressed, with the content cut into pieces anywhere."""

from __future__ import annotations

import bz2
import gzip
import itertools
import lzma
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from test_dimacs import BAD, GOOD
from test_identity import dimacs_texts

from satdoku.cnf.dimacs_fast import DimacsError
from satdoku.cnf.dimacs_stream import (
    FileChanged,
    _Stream,
    gbd_of_pieces,
    has_stream_engine,
    scan_dimacs,
)
from satdoku.cnf.formula import model_values, model_values_python, unsatisfied_python
from satdoku.identity import cnf_hash_bytes
from satdoku.size_limits import default_size_limits
from satdoku.sources import InputError

pytestmark = pytest.mark.skipif(not has_stream_engine(), reason="compiled passes not built")

COMPRESS = {"": lambda b: b, ".gz": gzip.compress, ".xz": lzma.compress, ".bz2": bz2.compress}

#: accepted files whose GBD hash is easy to get wrong from the body's tokens
GBD_TRICKY = {
    "comments and blank lines": b"c a\n\nc b 1 2 0\np cnf 4 3\n\n1 -2 0 3 0\nc 5 0\n \n-4\n 2 0\n",
    "crlf": b"c x\r\np cnf 3 2\r\n1 -2 0\r\nc y\r\n2\r\n3 0\r\n",
    "tabs": b"p cnf 3 2\n\t1\t-2\t0\t3\n0\t\n",
    "percent end": b"p cnf 3 2\n1 -2 0\n2 3 0\n%\n0\n",
    "percent after blanks": b"p cnf 3 1\n1 0\n \t%\n0\n",
    "cr inside a comment": b"p cnf 3 2\n1 -2 0\nc note\r5 0\n2 3 0\n",
    "cr then percent in a comment": b"p cnf 3 2\n1 -2 0\nc x\r%\n2 3 0\n",
    "cr in a header comment": b"c h\r7 0\np cnf 3 1\n1 0\n",
    "long zero-padded literal": b"p cnf 3 1\n" + b"0" * 300 + b"1 -2 0\n",
    "last clause open": b"p cnf 3 2\n1 0\n2 -3",
    "last zero signed": b"p cnf 3 1\n1 -0\n",
    "last zero doubled": b"p cnf 3 1\n1 00 \n",
}
#: what GBD's reference hashes of them: the content before a '%' trailer (a '%' first on a
#: line, lines ended by LF or CR), as satdoku.identity's module doc defines our hash
GBD_TRAILER_CUT = {
    "percent end": b"p cnf 3 2\n1 -2 0\n2 3 0\n",
    "percent after blanks": b"p cnf 3 1\n1 0\n",
    "cr then percent in a comment": b"p cnf 3 2\n1 -2 0\nc x\r",
}

HOSTILE = {
    **{f"good {k}": v[0] for k, v in GOOD.items()},
    **{f"bad {k}": v[0] for k, v in BAD.items()},
    "bom and crlf": b"\xef\xbb\xbfc x\r\np cnf 3 2\r\n1 -2 0\r\n2 3 0\r\n",
    "utf-16": "c u\np cnf 3 2\n1 -2 0\n2 3 0\n".encode("utf-16"),
    "truncated mid-literal": b"p cnf 30 2\n1 -2 0\n2 3",
    "absurd clause count": b"p cnf 3 999999999999\n1 0\n",
    "absurd variables": b"p cnf 99999999999999999999 1\n1 0\n",
    "empty file": b"",
    "comment with zeros": b"p cnf 3 2\n1 -2 0\nc 0 0 0\n2 3 0\n",
    "nul bytes": b"p cnf 3 1\n1 \x00 0\n",
    "long bad token": b"p cnf 3 1\n1 " + b"x" * 500 + b" 0\n",
    # the compiled body's fast path (whole literals of up to 10 digits) and its edges
    "ten-digit literals": b"p cnf 2147483646 2\n2147483646 -0000000001 0\n-2147483646 0\n",
    "eleven digits in range": b"p cnf 5 1\n00000000005 -00000000001 0\n",
    "ten digits one past": b"p cnf 2147483646 1\n1 2147483647 0\n",
    "huge literal": b"p cnf 3 1\n1 99999999999999999999999 0\n",
    "one past the variables": b"p cnf 3 1\n1 -4 0\n",
    "zeros with signs": b"p cnf 3 2\n1 -0\n00 2 -00\n",
    "sign alone": b"p cnf 3 1\n1 - 0\n",
    "two signs": b"p cnf 3 1\n--1 0\n",
    "sign after digits": b"p cnf 3 1\n1- 0\n",
    "letter after digits": b"p cnf 3 1\n12a 0\n",
    "vertical tab": b"p cnf 3 1\n1\x0b2 0\n",
    "tabs and carriage returns": b"p cnf 3 2\n\t1\t-2\r0\r\n3 0\t\n",
    "literal at the very end": b"p cnf 3 1\n1 -2 3",
    # found by the dimacs_files fuzz target (seed 5291, shrunk): the trailer ends an open
    # clause, as the Python reader closes it (the compiled body dropped it: 0 clauses)
    "open clause before the trailer": b"p cnf 9 1\n-5 7 \n%\n7 0\n",
    "open clause before the trailer, count off": b"p  cnf 9\t7 \n-5 7 \n%\n7\t2\t0",
    **{f"gbd {k}": v for k, v in GBD_TRICKY.items()},
    # literals of 1-12 digits (zero-padded; the compiled body reads up to 8 at once, then digit
    # by digit up to 10), signed or not, ended by each blank; cut anywhere by the tests below
    **{f"literals of {w} digits": b"p cnf 9 2\n" + b"".join(
        sign + b"%0*d" % (w, 5) + end for sign in (b"", b"-") for end in (b" ", b"\t", b"\r\n"))
       + b"0\n7" + b"0" * w + b" 0\n" for w in range(1, 13)},
}


def _outcome(path: Path, engine: str, **kw: object) -> object:
    try:
        s = scan_dimacs(path, keep=True, gbd=True, engine=engine, **kw)  # type: ignore[arg-type]
    except (DimacsError, InputError) as exc:
        assert "\n" not in str(exc)
        return ("error", type(exc).__name__, str(exc))
    return (s.num_vars, s.num_clauses, s.sha256, s.instance_hash, s.standard, s.lits,
            s.comments, s.compression)


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_stream_equals_whole_file_reference(tmp_path: Path, case: str, suffix: str) -> None:
    path = tmp_path / f"f.cnf{suffix}"
    path.write_bytes(COMPRESS[suffix](HOSTILE[case]))
    whole = _outcome(path, "whole")
    assert _outcome(path, "stream") == whole
    assert _outcome(path, "stream", chunk=7) == whole  # pieces after the first 8 KB


def _scan_pieces(data: bytes, cuts: list[int], values: bytes | None = None) -> object:
    """The streaming pass over ``data`` handed over in pieces cut at ``cuts``."""
    import hashlib

    from satdoku.cnf.dimacs_stream import _native

    bounds = [0, *sorted(cuts), len(data)]
    stream = _Stream(_native(), "x.cnf", True, True, values, None, 0, default_size_limits())
    try:
        stream.read(data[a:b] for a, b in itertools.pairwise(bounds))
        s = stream.result(hashlib.sha256(data).hexdigest(), None, 0, len(data))
        if stream.gbd_unsure:  # as scan_dimacs does: GBD's own pass, over the pieces again
            s.instance_hash = gbd_of_pieces(_native(), (data[a:b] for a, b in
                                                        itertools.pairwise(bounds)))
    except DimacsError as exc:
        return ("error", str(exc))
    return (s.num_vars, s.num_clauses, s.lits, s.instance_hash, s.standard, s.unsatisfied,
            s.first_unsatisfied)


@pytest.mark.parametrize("case", sorted(k for k in HOSTILE if k != "utf-16"))
def test_every_cut_gives_the_same_answer(case: str) -> None:
    data = HOSTILE[case]
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # the content stream drops a BOM before the pass sees it
    one = _scan_pieces(data, [])
    for cut in range(len(data) + 1):
        assert _scan_pieces(data, [cut]) == one, cut
    rng = random.Random(29)
    for _ in range(20):
        cuts = rng.sample(range(len(data) + 1), min(len(data) + 1, 5))
        assert _scan_pieces(data, cuts) == one


@settings(max_examples=300, deadline=None, derandomize=True)
@given(dimacs_texts())
def test_streamed_gbd_hash_equals_the_python_hash(data: bytes) -> None:
    import hashlib

    from satdoku.cnf import _dimacs  # type: ignore[attr-defined]

    rng = random.Random(len(data))
    for _ in range(3):
        md5 = hashlib.md5(usedforsecurity=False)
        tokens = _dimacs.GbdTokens(md5.update)
        pos = 0
        while pos < len(data):
            step = rng.randint(1, 9)
            tokens.feed(data[pos:pos + step])
            pos += step
        tokens.finish()
        assert md5.hexdigest() == cnf_hash_bytes(data)


def test_gbd_hash_of_odd_text() -> None:
    for data in (b"1 -2 0\r2 0", b"c x\rp cnf 2 2\r\n1 0 x 5\n%\n7 0", b"  %\n1 0", b"00", b"-0",
                 b"1\x0b2\x0c0", b"x 1 0\n 3", b""):
        import hashlib

        from satdoku.cnf import _dimacs  # type: ignore[attr-defined]

        md5 = hashlib.md5(usedforsecurity=False)
        tokens = _dimacs.GbdTokens(md5.update)
        for i in range(len(data)):
            tokens.feed(data[i:i + 1])
        tokens.finish()
        assert md5.hexdigest() == cnf_hash_bytes(data), data


@pytest.mark.parametrize("case", sorted(GBD_TRICKY))
def test_gbd_hash_from_the_body_pass_is_gbds(tmp_path: Path, case: str) -> None:
    """The hash the body's pass takes from its own tokens (or, where it is unsure, GBD's own
    pass) equals GBD's Python ``cnf_hash`` transcribed (test_identity's independent reference;
    a ``%`` trailer cut first, as the module doc of satdoku.identity says)."""
    from test_identity import gbd_reference

    data = GBD_TRICKY[case]
    path = tmp_path / "f.cnf"
    path.write_bytes(data)
    expect = gbd_reference(GBD_TRAILER_CUT.get(case, data))
    for chunk in (1 << 20, 3):
        assert scan_dimacs(path, gbd=True, chunk=chunk).instance_hash == expect


def test_model_check_counts_what_the_python_check_counts() -> None:
    rng = random.Random(4)
    n = 40
    clauses = [[rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(3)] for _ in range(300)]
    data = (f"p cnf {n} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n"
                                                   for c in clauses)).encode()
    for seed in range(5):
        r = random.Random(seed)
        model = [v if r.random() < 0.5 else -v for v in range(1, n + 1)]
        values, conflict = model_values(model, n)
        assert (values, conflict) == model_values_python(model, n)
        lits = _scan_pieces(data, [])[2]  # type: ignore[index]
        expect = unsatisfied_python(lits, n, values)
        got = _scan_pieces(data, [r.randint(0, len(data))], values)
        assert got[5:] == (len(expect), expect[0] if expect else -1)  # type: ignore[index]
        assert expect  # random models of 300 random clauses leave some unsatisfied


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1000])
def test_model_check_of_partial_and_clashing_models_in_memory_and_streamed(n: int) -> None:
    """The compiled checks pack the value table one bit a literal: models that leave
    variables out, set some both ways or name literals beyond the formula count as the
    byte table in Python counts them, for table sizes around a byte's edge."""
    from satdoku.cnf.formula import unsatisfied

    rng = random.Random(n)
    clauses = [[rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(rng.randint(1, 3))]
               for _ in range(200)]
    data = (f"p cnf {n} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n"
                                                    for c in clauses)).encode()
    lits = _scan_pieces(data, [])[2]  # type: ignore[index]
    for seed in range(8):
        r = random.Random(seed)
        model = [v if r.random() < 0.5 else -v for v in range(1, n + 1) if r.random() < 0.8]
        model += [r.choice((-1, 1)) * r.randint(1, n + 3) for _ in range(seed)]  # clashes
        values, _ = model_values(model, n)
        expect = unsatisfied_python(lits, n, values)
        want = (len(expect), expect[0] if expect else -1)
        assert unsatisfied(lits, n, values) == want
        assert _scan_pieces(data, [r.randint(0, len(data))], values)[5:] == want  # type: ignore[index]


def test_a_model_setting_a_variable_both_ways_is_named() -> None:
    assert model_values([1, -2, 2, 3], 3)[1] == 2
    assert model_values_python([1, -2, 2, 3], 3)[1] == 2
    assert model_values([5, -7, 0, 1], 3) == model_values_python([5, -7, 0, 1], 3)


def test_changed_file_and_truncated_archive_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "a.cnf"
    path.write_bytes(b"p cnf 2 1\n1 2 0\n")
    sha = scan_dimacs(path).sha256
    path.write_bytes(b"p cnf 2 1\n1 -2 0\n")
    for engine in ("stream", "whole"):
        with pytest.raises(FileChanged, match="changed since it was read"):
            scan_dimacs(path, expect_sha256=sha, engine=engine)
    gz = tmp_path / "t.cnf.gz"
    gz.write_bytes(gzip.compress(b"p cnf 2 1\n1 2 0\n" * 50)[:-12])
    for engine in ("stream", "whole"):
        with pytest.raises(InputError, match="truncated or corrupt gzip") as err:
            scan_dimacs(gz, engine=engine)
        assert "\n" not in str(err.value)


def test_standard_files_are_the_ones_a_binary_reads_as_we_do(tmp_path: Path) -> None:
    cases = {b"p cnf 2 1\n1 2 0\n": True, b"c x\np cnf 2 1\r\n1 2 0\r\n": True,
             b"p  cnf 2 1\n1 2 0\n": False, b"p cnf 2 1\n1 2\n": False,
             b"p cnf 2 1\n1 2 0\n%\n0\n": False, b"\xef\xbb\xbfp cnf 2 1\n1 2 0\n": False}
    for data, standard in cases.items():
        path = tmp_path / "s.cnf"
        path.write_bytes(data)
        assert scan_dimacs(path).standard is standard, data


V_TEXTS = [b" 1 -2 3 0", b"1\t-2\r\n3\x0b4\x0c0", b"+5 -0 0007 -2147483647 2147483647",
           b"2147483648 1", b"-99999999999999999999999 2", b"1 2x 3", b"1 - 2", b"1 + 2",
           b"1_0 2", b"\xd9\xa3 4", b"", b"   ", b"1 --2 x y", b"0 0 0"]


@pytest.mark.parametrize("text", V_TEXTS)
def test_v_literals_compiled_equals_python(text: bytes) -> None:
    from array import array

    from satdoku.solvers.output import v_literal_bytes, v_literals_python

    raw, bad = v_literal_bytes(text)
    assert (array("i", raw).tolist(), bad) == v_literals_python(text)


@pytest.mark.parametrize("text", V_TEXTS)
def test_v_runs_compiled_equal_python(text: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled run of v lines against the readable one (the regex, then the Python
    reader), from every line start of output cut anywhere."""
    from satdoku.solvers import output

    out = (b"c x\nv " + text + b"\nv\nv " + text.replace(b"\n", b"\nv ") + b"\nv 9 " + text
           + b"\nvx 1\nv\r\nv\t3\nv -4 0\n")
    compiled = []
    for cut in range(len(out) + 1):
        data = out[:cut]
        starts = [0] + [i + 1 for i, ch in enumerate(data) if ch == 10]
        compiled.append([output.v_run(data, start) for start in starts])
    monkeypatch.setattr(output, "_native", lambda: None)
    for cut, got in enumerate(compiled):
        data = out[:cut]
        starts = [0] + [i + 1 for i, ch in enumerate(data) if ch == 10]
        assert got == [output.v_run(data, start) for start in starts], (data, text)


def test_a_garbage_v_token_is_named_once() -> None:
    from satdoku.solvers.output import AnswerStream

    stream = AnswerStream()
    stream.feed(b"s SATISFIABLE\nv 1 -2 1_0 3\nv 4x 0\n")
    stream.close()
    status, model = stream.answer()
    assert stream.garbage == "1_0" and status == "SAT" and model.tolist() == [1, -2, 3]


SOLVER_OUTPUT = (b"c banner\nv 1 -2 3\nv\nv 4 0\nvx 9\nv\r\nv -5\tx7 +6 99999999999\n"
                 b"s SATISFIABLE\nc " + b"y" * 300 + b"\nv 7 0\nv 8")


@pytest.mark.parametrize("data", [SOLVER_OUTPUT, SOLVER_OUTPUT + b"\n",
                                  b"s UNSATISFIABLE\n", b"v 1 2\nv 3\n" * 50 + b"s UNKNOWN"])
def test_answer_stream_reads_whole_v_lines_at_once_as_it_reads_them_one_by_one(
        data: bytes) -> None:
    """Runs of whole v lines are read as one text; fed a byte at a time (never a whole line
    in one piece) the stream reads line by line. Both, and any cuts between, agree."""
    from satdoku.solvers.output import AnswerStream

    def read(pieces: list[bytes]) -> tuple[object, ...]:
        stream = AnswerStream()
        for piece in pieces:
            stream.feed(piece)
        stream.close()
        status, model = stream.answer()
        return (status, None if model is None else model.tolist(), stream.garbage,
                list(stream.tail), stream.bytes)

    one_by_one = read([data[i:i + 1] for i in range(len(data))])
    assert read([data]) == one_by_one
    rng = random.Random(29)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(data)), min(4, len(data) - 1)))
        assert read([data[a:b] for a, b in itertools.pairwise([0, *cuts, len(data)])]) \
            == one_by_one


def test_a_model_as_int32_array_is_checked_and_written_like_a_list() -> None:
    from array import array

    from satdoku.cnf.dimacs import v_lines, v_lines_python
    from satdoku.formats.cnfset import solution_text

    model = [1, -2, 3, -2147483647]
    packed = array("i", model)
    assert solution_text(packed) == solution_text(model) == "1 -2 3 -2147483647 0"
    assert v_lines(packed) == v_lines(model) == v_lines_python(model)
    assert model_values(packed, 5) == model_values(model, 5) == model_values_python(model, 5)


def test_the_gbd_pass_beside_keeps_order_and_raises_its_error_in_the_callers_thread() -> None:
    from satdoku.cnf.dimacs_stream import _Beside

    fed: list[bytes] = []

    def feed(piece: bytes) -> None:
        if piece == b"bad":
            raise MemoryError("no room")
        fed.append(piece)

    beside = _Beside(feed)
    for piece in (b"a", b"b", b"bad", b"c"):
        beside.put(piece)
    with pytest.raises(MemoryError, match="no room"):
        beside.close()
    assert fed == [b"a", b"b"]  # in order; nothing after the error
    one = _Beside(fed.append)
    one.put(b"only")
    one.close()  # one piece: fed in the caller's thread, no thread started
    assert fed[-1] == b"only" and one.thread is None
    quiet = _Beside(feed)
    for piece in (b"x", b"bad"):
        quiet.put(piece)
    quiet.close(quietly=True)  # the caller raises its own error: this one is not raised
