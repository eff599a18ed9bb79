import re

from judge.challenge.cases import call_seed, case_elements, cpu_caps, edge_values, generate_cases, limits_for, shrink, \
    skipped_explicit
from judge.challenge.spec import load_spec

from conftest import CHALLENGES

TRANSPOSE = load_spec(CHALLENGES / "transpose.yaml")
MATMUL = load_spec(CHALLENGES / "matmul.yaml")


def test_edge_values_cover_smallest_primes_and_off_by_ones():
    values = edge_values(1, 8192)
    for v in (1, 2, 3, 17, 33, 65, 129, 257, 100, 1000, 8192):
        assert v in values
    assert edge_values(5, 40) == [5, 7, 13, 17, 31, 33, 40]


def test_cases_are_reproducible_from_the_seed():
    a = generate_cases(TRANSPOSE, 42, interpret=False)
    b = generate_cases(TRANSPOSE, 42, interpret=False)
    c = generate_cases(TRANSPOSE, 43, interpret=False)
    assert a == b
    assert [x.params for x in a if x.kind == "random"] != [x.params for x in c if x.kind == "random"]


def test_gpu_cases_include_edges_explicit_and_the_maximum():
    cases = generate_cases(TRANSPOSE, 1, interpret=False)
    params = [c.params for c in cases]
    assert {"rows": 1, "cols": 1} in params
    assert {"rows": 1, "cols": 8192} in params and {"rows": 8192, "cols": 1} in params
    assert {"rows": 8192, "cols": 8192} in params
    assert {"rows": 7000, "cols": 6000} in params
    assert any(c.params["rows"] in (65, 129, 257, 1025) for c in cases)
    firsts = [c.params for c in cases if c.kind != "repeat"]
    assert len({tuple(p.values()) for p in firsts}) == len(firsts)  # no duplicates


def test_two_sizes_are_repeated_with_new_values_at_the_end():
    cases = generate_cases(TRANSPOSE, 1, interpret=True)
    repeats = [c for c in cases if c.kind == "repeat"]
    assert [c.name for c in cases[-2:]] == ["repeat-1", "repeat-2"]
    for repeat in repeats:
        assert any(c.params == repeat.params and c.kind != "repeat" for c in cases)
    assert call_seed(1, "repeat-1", 0) != call_seed(1, "edge-4", 0)


def test_interpret_mode_caps_every_case():
    limits = limits_for(MATMUL, interpret=True)
    cases = generate_cases(MATMUL, 7, interpret=True)
    assert len(cases) >= 5 and all(case.params for case in cases)  # an empty loop would check nothing
    for case in cases:
        assert set(case.params) == set(limits)
        for name, value in case.params.items():
            assert limits[name][0] <= value <= limits[name][1]


def test_cpu_elements_scales_the_cpu_caps_to_tests_of_that_many_elements():
    """Issue 29 item 7: --cpu-elements N raises (or lowers) the CPU-mode caps of a YAML spec by one factor."""
    assert cpu_caps(TRANSPOSE) == TRANSPOSE.interpret_max == {"rows": 48, "cols": 48}
    for spec, budget in ((TRANSPOSE, 2_000_000), (MATMUL, 2_000_000), (TRANSPOSE, 100)):
        caps = cpu_caps(spec, budget)
        assert case_elements(spec, caps) <= budget
        assert case_elements(spec, {n: v + 1 for n, v in caps.items()}) > budget  # the largest that fits
    assert cpu_caps(TRANSPOSE, 2_000_000) == {"rows": 1000, "cols": 1000}
    assert cpu_caps(TRANSPOSE, 10**12) == {"rows": 8192, "cols": 8192}  # never above the ranges
    ratio = {n: v / MATMUL.interpret_max[n] for n, v in cpu_caps(MATMUL, 2_000_000).items()}
    assert max(ratio.values()) - min(ratio.values()) < 0.05  # one factor for every size


def test_explicit_sizes_above_the_caps_run_within_cpu_elements():
    assert [c.name for c in skipped_explicit(TRANSPOSE, True)] == ["1000x999", "7000x6000"]
    assert [c.name for c in skipped_explicit(TRANSPOSE, True, 1_998_000)] == ["7000x6000"]
    assert skipped_explicit(TRANSPOSE, False) == []
    names = [c.name for c in generate_cases(TRANSPOSE, 1, True, 1_998_000)]
    assert "1000x999" in names and "7000x6000" not in names


def test_call_seeds_differ_per_call_and_case_but_are_stable():
    assert call_seed(1, "edge-1", 0) == call_seed(1, "edge-1", 0)
    assert len({call_seed(1, "edge-1", 0), call_seed(1, "edge-1", 1), call_seed(1, "edge-2", 0),
                call_seed(2, "edge-1", 0)}) == 4
    assert 0 <= call_seed(5, "x", 3) < 2**63


def test_shrink_finds_the_smallest_failing_size():
    # A grid bug: fails when rows is not a multiple of 16 and above 16, whatever cols is.
    fails = lambda p: p["rows"] > 16 and p["rows"] % 16 != 0  # noqa: E731
    smallest, calls = shrink(TRANSPOSE, {"rows": 48 + 7, "cols": 40}, fails, budget=200)
    assert smallest == {"rows": 17, "cols": 1}
    assert calls < 60


def test_shrink_respects_its_budget():
    seen = []

    def fails(p):
        seen.append(p)
        return False  # nothing smaller fails: the search would go on without a budget

    smallest, calls = shrink(TRANSPOSE, {"rows": 5000, "cols": 5000}, fails, budget=3)
    assert calls == 3 == len(seen)


def test_shrink_keeps_the_original_when_nothing_smaller_fails():
    smallest, _ = shrink(TRANSPOSE, {"rows": 4, "cols": 4}, lambda p: False, budget=50)
    assert smallest == {"rows": 4, "cols": 4}


def test_every_seed_gives_the_same_case_names():
    """A random draw that repeats an edge, explicit or earlier random size is drawn again rather than
    dropped: `judge run` showed 17 tests one time and 18 the next ("random-2" missing, no note)."""
    from judge.challenge.spec import load_spec as load

    for path in sorted(CHALLENGES.glob("*.yaml")):
        spec = load(path)
        for interpret in (True, False):
            names = {tuple(c.name for c in generate_cases(spec, seed, interpret)) for seed in range(300)}
            assert len(names) == 1, (path.name, interpret, sorted(map(len, names)))
            cases = generate_cases(spec, 7, interpret)
            firsts = [tuple(c.params.values()) for c in cases if c.kind != "repeat"]
            assert len(set(firsts)) == len(firsts)  # and still no size twice


# -- one case alone: judge run --case / --sizes (issue 49 item 6) -------------------------------------
def test_sizes_are_read_in_the_challenges_order_and_checked():
    import pytest

    from judge.challenge.cases import CaseSelectionError, parse_sizes

    assert parse_sizes("cols=1, rows=32", TRANSPOSE) == {"rows": 32, "cols": 1}
    for text, words in [("row=2,cols=1", "'row' is not a size of transpose (did you mean 'rows'?)"),
                        ("rows=2", "cols missing"), ("rows=2,cols=x", "cols=x is not an integer"),
                        ("rows=0,cols=1", "outside transpose's sizes (rows in [1, 8192], cols in [1, 8192])"),
                        ("rows=2,rows=3,cols=1", "'rows' is named twice"), ("rows 2", "is not NAME=VALUE")]:
        with pytest.raises(CaseSelectionError, match=re.escape(words)):
            parse_sizes(text, TRANSPOSE)


def test_a_sized_case_draws_the_values_the_search_for_a_smaller_size_drew():
    """--sizes rows=2,cols=1 with the run's seed reproduces exactly what "fails at rows=2, cols=1" saw."""
    from judge.challenge.cases import shrink_case, sized_case

    assert sized_case({"rows": 2, "cols": 1}).name == shrink_case({"rows": 2, "cols": 1}).name == "rows=2, cols=1"
    assert sized_case({"rows": 2, "cols": 1}).kind == "sizes"


def test_a_case_is_picked_by_name_and_a_typo_gets_the_closest():
    import pytest

    from judge.challenge.cases import CaseSelectionError, select_case

    cases = generate_cases(TRANSPOSE, 1, interpret=True)
    assert select_case(cases, "edge-2").params == {"rows": 48, "cols": 1}
    with pytest.raises(CaseSelectionError, match=r"no such case \(did you mean 'edge-2'\?\); its cases are edge-1, "):
        select_case(cases, "egde-2")
