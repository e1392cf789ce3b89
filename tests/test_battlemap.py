"""The battle map on its own (`combatlog.engine.battlemap.Map`, `docs/rules/triptycho.md`):
distances, paths, heights, soft and hard borders, lines of fire, drawing, and each way a map
is refused, naming its key. Every map is built here, and the expected figures come from it."""

from __future__ import annotations

import pytest

from combatlog.engine import Refused
from combatlog.engine.battlemap import Border, Map, MapSpec, Section, Step
from tests.builders import board, border, section


def hallway(ids: str, **kw: object) -> Map:
    """Sections in a row, each joined to the next by a border with the same settings."""
    return Map.load(board(*map(section, ids), borders=[border(a, b, **kw) for a, b in zip(ids, ids[1:])]))


def line(*heights: int) -> tuple[Map, str, str]:
    """A row of sections rising by `heights` in turn, and its two ends."""
    ids = [f"s{i}" for i in range(len(heights) + 1)]
    spec = board(*map(section, ids), borders=[border(ids[i], ids[i + 1], height=h) for i, h in enumerate(heights)])
    return Map.load(spec), ids[0], ids[-1]


def route(path: tuple[Step, ...]) -> list[str]:
    """The sections a path goes through, its start included."""
    return [path[0].a, *(s.b for s in path)] if path else []


def refusal(spec: dict) -> str:
    with pytest.raises(Refused) as err:
        Map.load(spec)
    return str(err.value)


# --- distance --------------------------------------------------------------------------------


def test_distance_counts_the_soft_borders_along_a_hallway_both_ways():
    ids = "abcde"
    m = hallway(ids)
    for i, a in enumerate(ids):
        for j, b in enumerate(ids):
            assert m.distance(a, b) == abs(i - j), (a, b)


def test_distance_takes_the_fewest_borders_not_the_first_found():
    # a ring a-b-c-d-e-a: from a, d is three borders one way round and two the other
    ring = "abcde"
    m = Map.load(board(*map(section, ring), borders=[border(x, ring[(i + 1) % 5]) for i, x in enumerate(ring)]))
    assert m.distance("a", "d") == 2
    assert m.distance("b", "d") == 2
    assert m.distance("a", "c") == 2


def test_heights_dont_lengthen_a_distance():
    m, start, end = line(5, -3, 4)
    assert m.distance(start, end) == 3


def test_a_hard_border_is_not_crossed_for_distance_and_the_way_round_counts():
    walled = hallway("ab", kind="hard")
    assert walled.distance("a", "b") is None
    assert walled.distance("b", "a") is None
    # a wall between a and b, and a soft way round through c: two borders, not one
    m = Map.load(
        board(
            section("a"),
            section("b"),
            section("c"),
            borders=[border("a", "b", kind="hard"), border("a", "c"), border("c", "b")],
        )
    )
    assert m.distance("a", "b") == 2


def test_a_section_cut_off_has_no_distance_and_a_section_is_none_from_itself():
    m = Map.load(board(section("a"), section("b"), section("island"), borders=[border("a", "b")]))
    assert m.distance("a", "island") is None
    assert m.distance("island", "a") is None
    assert m.distance("island", "island") == 0
    assert m.distance("a", "a") == 0


# --- paths ------------------------------------------------------------------------------------


def square() -> Map:
    """a-b-c-d-a: two ways of two borders from a to c."""
    return Map.load(
        board(
            *map(section, "abcd"),
            borders=[border("a", "b"), border("b", "c"), border("c", "d"), border("d", "a")],
        )
    )


def test_paths_are_every_simple_soft_path_shortest_first_and_within_the_limit():
    m = square()
    assert [route(p) for p in m.paths("a", "c", 2)] == [["a", "b", "c"], ["a", "d", "c"]]
    assert list(m.paths("a", "c", 1)) == []
    assert list(m.paths("a", "c", 0)) == []
    # to b: the border straight there, then the long way round (three borders)
    assert [route(p) for p in m.paths("a", "b", 3)] == [["a", "b"], ["a", "d", "c", "b"]]
    # no longer path exists: a simple path never comes back to a section it went through
    assert [route(p) for p in m.paths("a", "b", 10)] == [["a", "b"], ["a", "d", "c", "b"]]


def test_the_path_to_where_one_stands_is_empty():
    m = square()
    assert list(m.paths("a", "a", 3)) == [()]
    assert list(m.paths("a", "a", 0)) == [()]


def test_a_path_holds_each_border_crossed_with_its_height_from_where_it_goes():
    m, start, end = line(2, -1)
    (path,) = m.paths(start, end, 2)
    assert [(s.a, s.b, s.height) for s in path] == [("s0", "s1", 2), ("s1", "s2", -1)]
    (back,) = m.paths(end, start, 2)
    assert [(s.a, s.b, s.height) for s in back] == [("s2", "s1", 1), ("s1", "s0", -2)]


def test_paths_dont_cross_hard_borders():
    m = Map.load(
        board(
            *map(section, "abc"),
            borders=[border("a", "b", kind="hard"), border("a", "c"), border("c", "b")],
        )
    )
    assert [route(p) for p in m.paths("a", "b", 3)] == [["a", "c", "b"]]


def test_a_border_not_straight_ends_a_path_but_is_not_continued_through():
    # a -- b (not straight) -- c: a path may end across it, never go on from it
    m = Map.load(board(*map(section, "abc"), borders=[border("a", "b"), border("b", "c", straight=False)]))
    assert [route(p) for p in m.paths("a", "c", 2)] == [["a", "b", "c"]]
    assert [route(p) for p in m.paths("c", "b", 2)] == [["c", "b"]]
    assert list(m.paths("c", "a", 2)) == []
    assert m.line_of_fire("c", "a", 2) is None
    # distance is a walk, not a line: it goes through
    assert m.distance("c", "a") == 2


# --- heights ----------------------------------------------------------------------------------


def test_a_border_rises_from_a_to_b_and_drops_as_much_back():
    m = Map.load(board(section("low"), section("high"), borders=[border("low", "high", height=3, climbable=False)]))
    up, down = m.step("low", "high"), m.step("high", "low")
    assert (up.a, up.b, up.height) == ("low", "high", 3)
    assert (down.a, down.b, down.height) == ("high", "low", -3)
    assert up.climbable is down.climbable is False
    assert up.kind == down.kind == "soft"
    assert m.neighbours("low") == {"high": up}
    assert m.neighbours("high") == {"low": down}


def test_defaults_are_soft_flat_and_climbable():
    m = hallway("ab")
    step = m.step("a", "b")
    assert (step.kind, step.height, step.climbable) == ("soft", 0, True)
    assert m.sections["a"].light == "lit"
    assert m.sections["a"].water is m.sections["a"].underwater is False


def test_no_step_between_sections_not_joined_or_unknown():
    m = hallway("abc")
    assert m.step("a", "c") is None
    assert m.step("a", "nowhere") is None
    assert m.step("nowhere", "a") is None
    assert m.neighbours("b").keys() == {"a", "c"}


def test_rise_is_the_sum_of_the_heights_along_a_path():
    heights = (3, -1, 4)
    m, start, end = line(*heights)
    (path,) = m.paths(start, end, len(heights))
    assert Map.rise(path) == sum(heights)
    (back,) = m.paths(end, start, len(heights))
    assert Map.rise(back) == -sum(heights)
    assert Map.rise(()) == 0


def test_a_position_covers_its_sections():
    assert Map.parts("hall+stair") == ("hall", "stair")
    assert Map.parts("hall") == ("hall",)
    assert Map.parts(None) == ()
    assert Map.parts("") == ()


# --- line of fire -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heights", "hidden"),
    [
        ((1, -2), True),  # the text: up then down, a crest
        ((1, 2), False),
        ((-6, 6), False),  # the text: down into a chasm and up again
        ((-2, -1), False),
        ((0, -1), False),  # flat then down: the ground never rose
        ((1, 0), False),  # up then flat: it never fell
        ((1, 0, -1), True),  # a crest with a flat top
        ((0, 0), False),
    ],
)
def test_the_terrain_hides_the_far_end_past_a_crest(heights, hidden):
    m, start, end = line(*heights)
    (path,) = m.paths(start, end, len(heights))
    assert Map.hidden(path) is hidden
    assert Map.hidden(()) is False


@pytest.mark.parametrize("heights", [(1, 2), (-6, 6), (-2, -1), (0, 0), (3,), (-3,)])
def test_a_line_of_fire_needs_a_range_of_its_borders_and_of_its_rise(heights):
    m, start, end = line(*heights)
    needs = max(len(heights), abs(sum(heights)))
    path = m.line_of_fire(start, end, needs)
    assert route(path) == [f"s{i}" for i in range(len(heights) + 1)]
    assert m.line_of_fire(start, end, needs - 1) is None
    # shooting back down (or up) the same path needs the same range
    assert m.line_of_fire(end, start, needs) is not None
    assert m.line_of_fire(end, start, needs - 1) is None


def test_a_hidden_target_has_no_line_of_fire_at_any_range():
    heights = (1, -2)
    m, start, end = line(*heights)
    assert all(m.line_of_fire(start, end, r) is None for r in range(len(heights) + 10))


def test_a_line_of_fire_to_ones_own_section_is_the_empty_path():
    m = hallway("ab")
    assert m.line_of_fire("a", "a", 0) == ()


def test_a_line_of_fire_goes_round_a_crest_or_a_climb_when_another_path_is_clear():
    # a to t: over a crest through c (up 1, down 1), or round through f, flat and one border longer
    crest = [border("a", "c", height=1), border("c", "t", height=-1)]
    flat = [border("a", "f"), border("f", "g"), border("g", "t")]
    m = Map.load(board(*map(section, ["a", "c", "f", "g", "t"]), borders=crest + flat))
    assert m.line_of_fire("a", "t", len(crest)) is None
    assert route(m.line_of_fire("a", "t", len(flat))) == ["a", "f", "g", "t"]
    # a steep short way (rise 4 over two borders) and a flat long one (three borders)
    steep = [border("a", "c", height=2), border("c", "t", height=2)]
    m = Map.load(board(*map(section, ["a", "c", "f", "g", "t"]), borders=steep + flat))
    assert route(m.line_of_fire("a", "t", len(flat))) == ["a", "f", "g", "t"]
    assert route(m.line_of_fire("a", "t", 4)) == ["a", "c", "t"]


def test_a_line_of_fire_doesnt_cross_a_wall():
    m = hallway("ab", kind="hard")
    assert all(m.line_of_fire("a", "b", r) is None for r in range(5))


# --- drawing ----------------------------------------------------------------------------------


def test_the_drawing_shows_each_section_its_borders_and_who_stands_there():
    m = Map.load(
        board(
            section("hall", name="Great hall"),
            section("pool", light="dark", water=True),
            section("deep", light="shadowy", water=True, underwater=True),
            borders=[
                border("hall", "pool", height=-2, climbable=False),
                border("pool", "deep", kind="hard"),
                border("deep", "hall", height=1),
            ],
        )
    )
    assert m.draw({"hall": ["x", "y"], "deep": ["z"]}) == [
        "[hall (Great hall)] lit: x, y",
        "    -- deep -1",
        "    -- pool -2 (no climbing)",
        "[pool] dark water: -",
        "    == deep",
        "    -- hall +2 (no climbing)",
        "[deep] shadowy underwater: z",
        "    -- hall +1",
        "    == pool",
    ]


def test_a_flat_border_not_climbable_says_nothing_of_climbing():
    m = hallway("ab", climbable=False)
    assert m.draw({}) == ["[a] lit: -", "    -- b", "[b] lit: -", "    -- a"]


# --- refusals ---------------------------------------------------------------------------------


def test_a_section_declared_twice_is_refused_naming_it():
    says = refusal(board(section("a"), section("b"), section("a"), borders=[]))
    assert says.startswith("map: section 'a': declared twice")


def test_a_section_id_with_a_plus_is_refused_naming_it():
    says = refusal(board(section("a"), section("b+c"), borders=[]))
    assert says.startswith("map: section 'b+c': a section id has no '+'")


@pytest.mark.parametrize("end", ["a", "b"])
def test_a_border_to_an_unknown_section_is_refused_naming_the_border_and_the_known_sections(end):
    ends = {"a": "x", "b": "y", end: "zz"}
    says = refusal(board(section("x"), section("y"), borders=[border("x", "y"), border(ends["a"], ends["b"])]))
    assert says == f"map: borders[1] ({ends['a']}|{ends['b']}): no section 'zz'; sections: x, y"


def test_a_border_on_a_map_without_sections_says_there_are_none():
    says = refusal(board(borders=[border("x", "y")]))
    assert says == "map: borders[0] (x|y): no section 'x'; sections: none"


def test_a_border_to_itself_is_refused_naming_it():
    says = refusal(board(section("a"), section("b"), borders=[border("a", "b"), border("b", "b")]))
    assert says.startswith("map: borders[1] (b|b): a border joins two different sections")


@pytest.mark.parametrize(
    "again",
    [
        border("a", "b", height=2, kind="hard"),
        border("a", "b", height=2, climbable=False),
        border("a", "b", height=-2),
        border("b", "a", height=2),  # from b, a rise of 2 back is not the drop of 2 declared
    ],
    ids=["kind", "climbable", "height", "height not negated from the other end"],
)
def test_a_border_declared_again_differently_is_refused_naming_it(again):
    says = refusal(board(section("a"), section("b"), borders=[border("a", "b", height=2), again]))
    first = 2 if again["a"] == "a" else -2
    assert says.startswith(
        f"map: borders[1] ({again['a']}|{again['b']}): declared again differently "
        f"(height {again['height']} from {again['a']}, but {first} before"
    )


@pytest.mark.parametrize("again", [{**border("a", "b"), "straight": False}, {**border("b", "a"), "straight": False}])
def test_a_border_declared_again_with_another_straightness_is_refused(again):
    says = refusal(board(section("a"), section("b"), borders=[border("a", "b"), again]))
    assert says.startswith(
        f"map: borders[1] ({again['a']}|{again['b']}): declared again differently (straight = false, but true before)"
    )


@pytest.mark.parametrize("again", [border("a", "b", height=2), border("b", "a", height=-2)])
def test_a_border_declared_again_alike_from_either_end_is_one_border(again):
    m = Map.load(board(section("a"), section("b"), borders=[border("a", "b", height=2), again]))
    assert m.step("a", "b").height == 2
    assert m.step("b", "a").height == -2
    assert list(m.paths("a", "b", 5)) == [(m.step("a", "b"),)]


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"sections": [{"id": ""}]}, "$.sections[0].id"),
        ({"sections": [{"id": "a" * 65}]}, "$.sections[0].id"),
        ({"sections": [{"id": "a", "light": "bright"}]}, "$.sections[0].light"),
        ({"sections": [{"id": "a", "colour": "red"}]}, "$.sections[0]"),
        (
            {"sections": [{"id": "a"}, {"id": "b"}], "borders": [{"a": "a", "b": "b", "kind": "door"}]},
            "$.borders[0].kind",
        ),
        (
            {"sections": [{"id": "a"}, {"id": "b"}], "borders": [{"a": "a", "b": "b", "height": "2"}]},
            "$.borders[0].height",
        ),
        ({"borders": []}, "$"),
    ],
    ids=["empty id", "long id", "light", "unknown field", "kind", "height as text", "no sections"],
)
def test_a_map_that_doesnt_fit_the_model_is_refused_naming_the_key(spec, key):
    with pytest.raises(Refused) as err:
        Map.load(spec, "encounter map")
    assert str(err.value).startswith(f"encounter map: {key}: ")


def test_a_border_declared_again_alike_leaves_the_later_borders_in():
    m = Map.load(board(*map(section, "abc"), borders=[border("a", "b"), border("b", "a"), border("b", "c")]))
    assert m.distance("a", "c") == 2
    assert m.neighbours("c") == {"b": m.step("c", "b")}


def test_a_border_not_straight_inside_a_longer_path_stops_the_line_there():
    # a -- b -- c -- d with b|c not straight: a line may reach c across it, never go on to d
    m = Map.load(
        board(*map(section, "abcd"), borders=[border("a", "b"), border("b", "c", straight=False), border("c", "d")])
    )
    assert [route(p) for p in m.paths("a", "c", 3)] == [["a", "b", "c"]]
    assert list(m.paths("a", "d", 3)) == []
    assert list(m.paths("d", "a", 3)) == []
    assert m.distance("a", "d") == 3


def test_only_the_border_just_crossed_decides_whether_a_line_goes_on():
    # a -- b -- c -- d, and a shortcut a|c that isn't straight: the line a, b, c, d never
    # crosses the shortcut, so it goes on through c
    m = Map.load(
        board(
            *map(section, "abcd"),
            borders=[border("a", "b"), border("b", "c"), border("c", "d"), border("a", "c", straight=False)],
        )
    )
    assert [route(p) for p in m.paths("a", "d", 3)] == [["a", "b", "c", "d"]]


# the longest id the model (`battlemap.Id`) takes: 64 characters
LONGEST_ID = 64


def test_a_section_id_of_the_longest_length_is_taken_and_one_more_is_refused():
    longest = "s" * LONGEST_ID
    m = Map.load(board(section("a"), section(longest), borders=[border("a", longest)]))
    assert m.distance("a", longest) == 1
    says = refusal(board(section("a" * (LONGEST_ID + 1)), borders=[]))
    assert says.startswith("map: $.sections[0].id: ")


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"sections": [{"id": "a"}, {"id": "b"}], "borders": [{"a": "a", "b": "b", "hieght": 2}]}, "$.borders[0]"),
        ({"sections": [{"id": "a"}], "border": []}, "$"),
    ],
    ids=["a misspelt border key", "a misspelt map key"],
)
def test_a_misspelt_key_is_refused_not_ignored(spec, key):
    says = refusal(spec)
    assert says.startswith(f"map: {key}: ") and "unknown field" in says


def test_a_loaded_map_cant_be_changed_behind_its_back():
    m = Map.load(board(section("a"), section("b"), borders=[border("a", "b", height=1)]))
    with pytest.raises(AttributeError):
        m.sections["a"].light = "dark"
    with pytest.raises(AttributeError):
        m.spec.borders[0].height = 5
    with pytest.raises(AttributeError):
        m.spec.sections = []
    with pytest.raises(AttributeError):
        m.step("a", "b").height = 5
    assert m.step("b", "a").height == -1


def test_built_in_code_sections_borders_and_maps_take_their_fields_by_name():
    with pytest.raises(TypeError):
        Section("a")
    with pytest.raises(TypeError):
        Border("a", "b")
    with pytest.raises(TypeError):
        MapSpec([Section(id="a")])
    m = Map(MapSpec(sections=[Section(id="a"), Section(id="b")], borders=[Border(a="a", b="b", height=2)]))
    assert m.step("b", "a").height == -2
