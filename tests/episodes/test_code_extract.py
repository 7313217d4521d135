"""Taking the program out of a model's reply: fences, several blocks, bare code, and replies with no code."""

from __future__ import annotations

import pytest

from engine.episodes.code.extract import extract_code

SOLUTION = "def area(w, h):\n    return w * h\n"


def test_one_python_block():
    got = extract_code(f"Sure.\n\n```python\n{SOLUTION}```\n\nThis multiplies.", "area")
    assert got.code == SOLUTION and got.how == "fenced"


@pytest.mark.parametrize("info", ["", "py", "Python3", "area.py", "python title=area.py", "{.python}"])
def test_fence_info_strings_that_mean_python(info):
    assert extract_code(f"```{info}\n{SOLUTION}```", "area").code == SOLUTION


def test_tilde_fence_and_longer_backtick_fence():
    assert extract_code(f"~~~\n{SOLUTION}~~~", "area").code == SOLUTION
    assert extract_code(f"````python\n{SOLUTION}````", "area").code == SOLUTION


def test_unclosed_fence_runs_to_the_end():
    assert extract_code(f"Here:\n```python\n{SOLUTION}", "area").code == SOLUTION


def test_indented_fence_inside_a_list_is_dedented():
    reply = "1. The fix:\n\n   ```python\n   def area(w, h):\n       return w * h\n   ```\n"
    assert extract_code(reply, "area").code == SOLUTION


def test_windows_line_endings():
    reply = f"```python\r\n{SOLUTION.replace(chr(10), chr(13) + chr(10))}```"
    assert extract_code(reply, "area").code == SOLUTION


def test_the_block_defining_the_function_wins_over_a_usage_block():
    reply = (f"```python\nprint(area(2, 3))\n```\nfirst the call, then the code:\n```python\n{SOLUTION}```\n"
             "And a test:\n```python\nassert area(2, 3) == 6\n```")
    got = extract_code(reply, "area")
    assert got.code == SOLUTION


def test_a_later_block_that_only_imports_the_function_does_not_win():
    tests = "from solution import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
    reply = f"```python\n{SOLUTION}```\nTests:\n```python\n{tests}```"
    assert extract_code(reply, "area").code == SOLUTION


def test_the_last_of_two_versions_wins():
    first = "def area(w, h):\n    return w + h\n"
    reply = f"```python\n{first}```\nOops, that adds. Corrected:\n```python\n{SOLUTION}```"
    assert extract_code(reply, "area").code == SOLUTION


def test_a_helper_in_its_own_block_is_joined_in_front():
    reply = ("Constants first:\n```python\nSCALE = 2\n\ndef _clean(x):\n    return abs(x)\n```\n"
             "Then the function:\n```python\ndef area(w, h):\n    return _clean(w) * _clean(h) * SCALE\n```\n"
             "Usage:\n```python\nprint(area(1, 2))\n```")
    got = extract_code(reply, "area")
    assert got.how == "fenced+1"
    assert got.code.index("SCALE = 2") < got.code.index("def area")
    assert "print(area(1, 2))" not in got.code


def test_blocks_in_other_languages_are_ignored():
    reply = f"Run it:\n```bash\npython area.py\n```\n```json\n{{\"a\": 1}}\n```\n```python\n{SOLUTION}```"
    assert extract_code(reply, "area").code == SOLUTION


def test_only_non_python_blocks_means_no_code():
    assert not extract_code("```bash\nls -la\n```", "area").found


def test_a_reply_that_is_code_alone():
    got = extract_code(SOLUTION, "area")
    assert got.code == SOLUTION and got.how == "bare"


def test_code_between_prose_without_fences():
    reply = f"Here is my answer.\n\n{SOLUTION}\nIt returns the product of the sides."
    got = extract_code(reply, "area")
    assert got.code == SOLUTION and got.how == "lines"


def test_imports_before_the_function_are_kept_without_fences():
    reply = f"The fix:\nimport math\n\n{SOLUTION}\nDone."
    assert extract_code(reply, "area").code == "import math\n\n" + SOLUTION


def test_prose_alone_has_no_code():
    for reply in ["I cannot help with that.", "", "42", "Yes", "The answer is area times two."]:
        assert not extract_code(reply, "area").found, reply


def test_a_tagged_block_with_a_syntax_error_is_still_the_answer():
    broken = "def area(w, h)\n    return w * h"
    got = extract_code(f"```python\n{broken}\n```\n```python\nprint('hi')\n```", "area")
    assert got.code == broken + "\n"  # it will fail with the real SyntaxError, as it should


def test_interactive_session_blocks_lose_their_prompts():
    reply = "```python\n>>> def area(w, h):\n...     return w * h\n...\n```"
    assert extract_code(reply, "area").code == SOLUTION


def test_think_blocks_are_not_code():
    reply = f"<think>maybe\n```python\ndef area(w, h):\n    return 0\n```\n</think>\n```python\n{SOLUTION}```"
    assert extract_code(reply, "area").code == SOLUTION


def test_without_an_entry_name_the_longest_block_wins():
    reply = f"```python\nx = 1\n```\n```python\n{SOLUTION}```"
    assert extract_code(reply).code == SOLUTION


def test_no_block_defines_the_function_falls_back_to_the_longest():
    other = "def perimeter(w, h):\n    return 2 * (w + h)\n"
    got = extract_code(f"```python\nx = 1\n```\n```python\n{other}```", "area")
    assert got.code == other  # the harness then reports the missing function to the model


def test_a_long_prose_reply_is_handled_quickly():
    import time

    reply = "\n".join(f"def f{i}(x) is a nice idea but {i} words" for i in range(400))
    started = time.perf_counter()
    extract_code(reply, "area")
    assert time.perf_counter() - started < 2.0
