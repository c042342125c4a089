"""The tour's views, on sessions of committed traces: what each shows, in each language, and
the kernel's code from where the kernel begins (a Triton kernel recorded on an H200, C++ ones
recorded on the CPU)."""

from __future__ import annotations

import pytest

from compilescope.render.blocks import Lines, to_html, to_rich
from compilescope.render.terminal import console_for
from compilescope.tour import views
from compilescope.tour.messages import LANGUAGES, say
from recorded import session


def shown(renderables: list) -> str:
    import io

    buffer = io.StringIO()
    console = console_for(buffer)
    console.width = 200
    for item in to_rich(renderables):
        console.print(item)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("trace", "kernel", "first"), [("cuda_graphs", "triton_poi_fused_mul_relu_0", "@triton.jit"), ("tiny", "cpp_fused_add_0", 'extern "C"')]
)
def test_a_kernels_code_is_shown_from_where_the_kernel_begins(trace: str, kernel: str, first: str) -> None:
    c = next(c for c in session(trace).compiles if any(k.name == kernel for k in c.kernels))
    text = shown(views.kernels("model", c, "en"))
    code = text.split(say("view.code", "en", kernel=kernel), 1)[1].lstrip("\n")
    assert code.startswith(first)
    assert "import triton" not in code and "#include" not in code  # the preamble is left out
    assert "'''" not in code  # and the end of the string the wrapper keeps it in


@pytest.mark.parametrize("lang", LANGUAGES)
def test_failed_guards_in_each_language(lang: str) -> None:
    # a size guard (expected 3, got 5) and a value guard (.item() read again: torch says only
    # what it expected), each version in a row of its own
    for function in ("Block.forward", "forward (after line 18)"):
        frame = next(f for f in session("quickstart").frames if f.known_as == function)
        text = " ".join(shown(views.versions(frame.compiles, lang)).split())
        failed = frame.compiles[1].failed_guards[0]
        if failed.actual is None:
            assert say("view.failed_only", lang, text=failed.text) in text
        else:
            assert say("view.failed", lang, expected=failed.expected, actual=failed.actual, text=failed.text) in text
        assert say("view.first_call", lang) in text and say("view.version", lang) in text


def test_a_tensor_guard_in_the_tours_words() -> None:
    guard = {"dtype": "float32", "size": [None, 64], "stride": [64, 1], "requires_grad": False}
    assert views.tensor_guard(guard, "x", "en") == "x is a float32 tensor of size [any, 64], stride [64, 1], requires_grad=False"
    assert views.tensor_guard(guard, "x", "zh") == "x 是 float32 张量，形状 [任意, 64]，步长 [64, 1]，requires_grad=False"
    assert views.tensor_guard(None, "x", "th") == say("word.unknown", "th")


def test_the_guards_by_kind_count_every_check() -> None:
    c = session("quickstart").compiles[0]
    frame = session("quickstart").frames[0]
    text = shown(views.graph_and_guards(frame, c, "en"))
    assert f"{len(c.guards)} guards, by kind:" in text and "TENSOR_MATCH ×" in text


def test_the_page_draws_tables_as_tables_and_escapes_what_it_writes() -> None:
    # a table on the page is an HTML table (text columns line up only in a terminal's cells:
    # Chinese and Thai came out ragged in a <pre>); every string escaped, styles as classes
    frame = next(f for f in session("quickstart").frames if f.known_as == "Block.forward")
    page = to_html(views.versions(frame.compiles, "zh"))
    assert "<table>" in page and f'<th class="left">{say("view.version", "zh")}</th>' in page
    assert "tensor &#x27;x&#x27; size mismatch" in page and "'x'" not in page
    from rich.text import Text

    line = Text("<script>alert(1)</script> ")
    line.append("f32[8, 64]", style="cyan")
    page = to_html([Lines([line], mono=True)])
    assert "&lt;script&gt;alert(1)&lt;/script&gt; " in page and "<script>" not in page
    assert '<span class="cyan">f32[8, 64]</span>' in page
