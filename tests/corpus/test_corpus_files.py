"""Reading corpus files: a case's text must load as its writer wrote it."""

from __future__ import annotations

import pytest

from engine.core.errors import UserError
from engine.corpus.replay import load_corpus

CASE = """task: mti_banned_word
batch: b1
cases:
  - name: hashtag_post
    expect: pass
    why: {why}
    replies:
      - text: {text}
"""


def _write(tmp_path, **fields):
    folder = tmp_path / "multi_turn_if"
    folder.mkdir()
    (folder / "mti_banned_word.b1.yaml").write_text(CASE.format(**fields), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("text", [
    "Come early! #JuniperBakes",  # YAML reads " #" as a comment: the hashtag would be lost
    "Come early!\n          #JuniperBakes",  # the same on a continuation line
])
def test_an_unquoted_text_cut_by_a_comment_is_refused_with_the_fix(tmp_path, text):
    with pytest.raises(UserError) as err:
        load_corpus(_write(tmp_path, why="a post that ends with its hashtag", text=text))
    message = str(err.value)
    assert "mti_banned_word.b1.yaml: line 8" in message and "quotes" in message


@pytest.mark.parametrize("text", [
    "'Come early! #JuniperBakes'", '"Come early! #JuniperBakes"', "|-\n          Come early! #JuniperBakes",
    "Come early!#JuniperBakes",
])
def test_quoted_or_block_text_keeps_its_hashtag(tmp_path, text):
    [loaded] = load_corpus(_write(tmp_path, why="a post that ends with its hashtag", text=text))
    assert loaded.cases[0].replies[0].text.endswith("#JuniperBakes")


def test_a_case_name_used_in_two_batches_is_graded_on_its_own_replies(tmp_path):
    # Names are unique within a batch only; a shared result file once gave the second case the first's verdict.
    from engine.corpus.replay import evaluate

    folder = tmp_path / "knowledge"
    folder.mkdir()
    for batch, value, expect in (("b1", "369", "pass"), ("b2", "367", "fail")):
        (folder / f"kn_bakery_batches.{batch}.yaml").write_text(
            f"task: kn_bakery_batches\nbatch: {batch}\ncases:\n  - name: same_name\n    expect: {expect}\n"
            f"    why: the answer line gives {value}\n    replies:\n      - text: 'Answer: {value}'\n",
            encoding="utf-8")
    results = evaluate(load_corpus(tmp_path), None)
    assert {(r.batch, r.got) for r in results} == {("b1", "pass"), ("b2", "fail")}
