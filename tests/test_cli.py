"""The command line: `companion play food-alley/shopper ...`."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from companion.cli import main, play_interactive
from companion.rules.food_alley.shopper import ShopperState
from companion.rules.protocol import StateFormatError


def run_cli(capsys, *args):
    code = main(list(args))
    return code, capsys.readouterr()


def test_auto_game_prints_log_and_score_table(capsys):
    code, out = run_cli(capsys, "play", "food-alley/shopper", "--players", "4", "--seed", "7",
                        "--auto")
    assert code == 0
    assert "Game over" in out.out
    assert "smileys  cats_off_board  all_four_types  unused_tokens  total" in out.out
    assert "Winner" in out.out


def test_auto_game_json_lines(capsys):
    code, out = run_cli(capsys, "play", "food-alley/shopper", "--players", "3", "--seed", "2",
                        "--auto", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.out.splitlines()]
    moves, final = lines[:-1], lines[-1]
    assert all({"player", "move", "smileys"} <= set(m) for m in moves)
    assert final["final"] is True
    assert len(final["tokens"]) == 54
    assert set(final["scores"]) == {"black", "white", "orange"}
    for score in final["scores"].values():
        assert score["total"] == sum(score["breakdown"].values())
    assert sorted(p for group in final["ranking"] for p in group) == ["black", "orange", "white"]
    assert final["winners"] == final["ranking"][0]
    # the last move's smileys agree with the final breakdown
    for colour, score in final["scores"].items():
        assert moves[-1]["smileys"][colour] == score["breakdown"]["smileys"]


def test_same_seed_same_output(capsys):
    _, a = run_cli(capsys, "play", "food-alley/shopper", "--seed", "3", "--auto", "--json")
    _, b = run_cli(capsys, "play", "food-alley/shopper", "--seed", "3", "--auto", "--json")
    assert a.out == b.out


def test_unknown_game_is_a_clear_error(capsys):
    code, out = run_cli(capsys, "play", "food-alley/pizza", "--auto")
    assert code == 2
    assert "unknown game 'food-alley/pizza'" in out.err and "food-alley/shopper" in out.err


def test_bad_player_count_is_a_clear_error(capsys):
    code, out = run_cli(capsys, "play", "food-alley/shopper", "--players", "6", "--auto")
    assert code == 2 and "2 to 4 players" in out.err


def test_interactive_play_takes_numbers_undo_and_quit():
    state = ShopperState.new(2, 4)
    script = io.StringIO("0\nu\nx\n99\n0\nq\n")
    out = io.StringIO()
    play_interactive(state, inp=script, out=out)
    text = out.getvalue()
    assert "undid: " in text
    assert text.count("not a choice: type a number from 0 to") == 2
    assert "this game is not saved" in text
    assert len([e for e in state.log if e["actor"] != "chance"]) == 1


@pytest.mark.parametrize("typed", ["-1", "\u0663", "1.5", "99999999999999999999", ""])
def test_interactive_play_refuses_what_is_not_a_choice(typed):
    state = ShopperState.new(2, 4)
    out = io.StringIO()
    play_interactive(state, inp=io.StringIO(f"{typed}\nq\n"), out=out)
    text = out.getvalue()
    assert "not a choice: type a number from 0 to" in text
    assert "invalid literal" not in text and "index" not in text
    assert not [e for e in state.log if e["actor"] != "chance"]


def test_ctrl_c_saves_the_game_without_a_traceback(tmp_path):
    class CtrlC(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    state = ShopperState.new(2, 4)
    out = io.StringIO()
    save = tmp_path / "game.json"
    play_interactive(state, inp=CtrlC(), out=out, save=save)
    assert "saved in" in out.getvalue() and "--resume" in out.getvalue()
    assert ShopperState.from_json(json.loads(save.read_text())).to_json() == state.to_json()


def test_quit_saves_and_resume_goes_on(capsys, monkeypatch, tmp_path):
    from companion.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("\n0\nq\n"))  # black places a cat
    assert main(["play", "food-alley/stray", "--players", "2", "--seed", "3", "--data",
                 str(tmp_path)]) == 0
    assert "--resume" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("\nb\n\ns\nq\n"))
    assert main(["play", "food-alley/stray", "--resume", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "cat black ?" in out or "cat white ?" in out  # the board: the cat placed before
    assert out.index("places a cat face down") < out.index("to act")  # where the game stood
    assert "exact_matches" in out  # the scores so far


def test_hints_are_the_modes_own():
    from companion.rules.food_alley.sambal import SambalState

    out = io.StringIO()
    play_interactive(SambalState.new(2, 1), inp=io.StringIO("Enter\nh\nq\n"), out=out)
    assert "this mode has no hint" in out.getvalue()
    assert "no set of 4" not in out.getvalue()


def test_secrets_are_chosen_behind_the_screen_and_never_shown():
    from companion.cli import CLEAR
    from companion.rules.food_alley.sambal import SambalState

    state = SambalState.new(2, 1)
    out = io.StringIO()
    play_interactive(state, inp=io.StringIO("\n0\n\n0\nq\n"), out=out)
    text = out.getvalue()
    capital = [e["action"]["token"] for e in state.log if "private_to" in e]
    assert capital and "Pass the screen to black" in text
    shared = "".join(part.split(CLEAR)[0] for part in text.split("Pass the screen")[1:])
    shared = text.split("Pass the screen")[0] + shared  # what the table sees
    for token in capital:
        assert f"draws {token}" not in shared
    assert "draws a coin behind the screen" in shared
    for chunk in text.split(CLEAR)[1::2]:  # behind the screen: the sealed options
        assert "offer" in chunk


def test_json_without_auto_is_refused(capsys):
    from companion.cli import main

    assert main(["play", "food-alley/shopper", "--json"]) == 2
    assert "--json prints a seeded game played with --auto" in capsys.readouterr().err


def test_corrupt_saved_state_is_refused():
    state = ShopperState.new(2, 1)
    data = state.to_json()
    data["state"]["bag"] = data["state"]["bag"][:-1]
    with pytest.raises(StateFormatError, match="exactly once"):
        ShopperState.from_json(data)
    with pytest.raises(StateFormatError, match="not 'food-alley/shopper'"):
        ShopperState.from_json({**data, "game": "food-alley/sambal"})


def test_module_entry_point_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "play", "food-alley/shopper", "--players", "2",
         "--seed", "1", "--auto", "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    assert json.loads(proc.stdout.splitlines()[-1])["final"] is True


def test_sambal_auto_game_json_lines(capsys):
    code, out = run_cli(capsys, "play", "food-alley/sambal", "--players", "4", "--seed", "5",
                        "--auto", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.out.splitlines()]
    final = lines[-1]
    assert final["final"] is True and final["game"] == "food-alley/sambal"
    assert len(final["tokens"]) == 54
    assert set(final["scores"]) == {"black", "white", "orange", "blue"}
    for score in final["scores"].values():
        assert score["total"] == sum(score["breakdown"].values())
    reveals = [m for m in lines[:-1] if m["move"]["type"] == "reveal"]
    assert reveals and all(m["player"] == "all" for m in reveals)
    assert not any(m["move"]["type"] == "offer" for m in lines[:-1])  # sealed choices not logged


def test_sambal_readable_game(capsys):
    code, out = run_cli(capsys, "play", "food-alley/sambal", "--players", "2", "--seed", "1",
                        "--auto")
    assert code == 0 and "recipe_chilis" in out.out and "Game over" in out.out


def test_stray_auto_game_json_lines(capsys):
    code, out = run_cli(capsys, "play", "food-alley/stray", "--players", "3", "--seed", "6",
                        "--auto", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.out.splitlines()]
    final = lines[-1]
    assert final["final"] is True and final["game"] == "food-alley/stray"
    assert len(final["tokens"]) == 54
    assert set(final["scores"]) == {"black", "white", "orange"}
    for score in final["scores"].values():
        assert score["total"] == sum(score["breakdown"].values())
    assert final["end"] == "both sets are played"


def test_play_json_shows_the_board_after_each_step(capsys):
    from companion.cli import main

    assert main(["play", "food-alley/stray", "--players", "2", "--seed", "5", "--auto",
                 "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    steps = [line for line in lines if not line.get("final")]
    assert all(len(s["board"]) == 5 and all(len(r) == 5 for r in s["board"]) for s in steps)
    placed = next(s for s in steps if s["move"]["type"] == "place-cat")
    cell = placed["move"]["cell"]
    shown = placed["board"][int(cell[1]) - 1]["abcde".index(cell[0])]
    assert shown == {"kind": "cat-back", "token": None, "player": placed["player"],
                     "value": None}  # a face-down cat is its owner's back
    first = steps[0]["board"][0][0]
    assert first["kind"] == "ingredient" and first["token"] == steps[0]["move"]["token"]


def test_an_ending_by_the_referees_rule_is_named_so(capsys):
    from companion.cli import main

    # seed 0, 4 players: every token ends on the board or behind the screens, nobody can act
    assert main(["play", "food-alley/shopper", "--players", "4", "--seed", "0", "--auto"]) == 0
    out = capsys.readouterr().out
    assert "Game over, ended by the referee's rule: no player could move or store" in out
    assert main(["play", "food-alley/shopper", "--players", "4", "--seed", "0", "--auto",
                 "--json"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["end_rule"] == "referee" and final["end"].startswith("no player could move")
    assert main(["play", "food-alley/stray", "--players", "2", "--seed", "5", "--auto",
                 "--json"]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["end_rule"] == "rulebook" and final["end"] == "both sets are played"


def test_table_options_are_checked(capsys):
    from companion.cli import main

    assert main(["play", "food-alley/sambal", "--players", "2", "--option", "recipes=open",
                 "--auto", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert any(x["move"]["type"] == "pile" for x in lines[:-1])  # open piles: unordered
    assert main(["play", "food-alley/sambal", "--option", "nonsense=1", "--auto"]) == 2
    assert "has no option 'nonsense' (its options: recipes" in capsys.readouterr().err
    assert main(["play", "food-alley/sambal", "--option", "recipes", "--auto"]) == 2
    assert "write KEY=VALUE" in capsys.readouterr().err
