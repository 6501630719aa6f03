"""``gasp view`` is read-only and serves nothing outside its folders: ``..`` and links
out get 404 without the file being opened, unknown pages get 404, a damaged store and
half-written results are shown as errors, viewing every page changes no file, an
export never lands inside the folders, and a host other than 127.0.0.1 is warned about."""

from __future__ import annotations

import re
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from _view_tree import HOSTILE, Tree, snapshot, view_tree  # noqa: F401 (the fixture)
from gasp.errors import ConfigError
from gasp.viewing import build_app, export_site, view
from gasp.viewing._paths import safe_file
from gasp.viewing._texts import word_page


@pytest.fixture(scope="module")
def client(view_tree: Tree) -> TestClient:  # noqa: F811
    return TestClient(build_app([view_tree.root]))


def _run_key(client: TestClient, folder: str) -> str:
    index = client.get("/").text
    found = re.search(rf'href="(run-[0-9a-f]{{12}}\.html)">{re.escape(folder)}<', index)
    assert found, folder
    return found.group(1)


def test_paths_out_of_the_folders_are_404(client: TestClient, view_tree: Tree) -> None:  # noqa: F811
    report = "releases/release-1/a/narratives/report"
    assert client.get(f"/files/0/{report}/report.html").status_code == 200
    for path in (
        f"/files/0/{report}/leak.html",  # a link to a file outside
        "/files/0/escape/secret.html",  # a linked folder outside
        "/files/0/%2E%2E/outside/secret.html",
        "/files/0/releases/%2E%2E/%2E%2E/outside/secret.html",
        "/files/0/..%2Foutside%2Fsecret.html",
        "/files/1/occugender/run.sqlite",  # no second folder
        "/files/0//etc/passwd",
        "/static/..%2F_app.py",
        "/run-000000000000.html",
        "/words-zz-1.html",
        "/%2E%2E/%2E%2E/etc/passwd",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "SECRET" not in response.text and "root:" not in response.text
    assert safe_file(view_tree.root, "../outside/secret.html") is None
    assert safe_file(view_tree.root, "escape/secret.html") is None
    assert safe_file(view_tree.root, "occugender/run.sqlite") is not None


def test_a_link_out_is_refused_without_opening_its_target(
    client: TestClient,
    view_tree: Tree,  # noqa: F811
) -> None:
    """The link points at a named pipe outside: opening it would block until a writer
    comes, so a 404 that comes back at once shows it was never opened."""
    answer: list[Any] = []
    path = "/files/0/releases/release-1/a/narratives/report/pipe.html"
    thread = threading.Thread(target=lambda: answer.append(client.get(path)), daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the server opened the pipe outside the folder"
    assert answer[0].status_code == 404


def test_damaged_runs_are_shown_as_errors(client: TestClient) -> None:
    index = client.get("/").text
    errors = re.findall(r'<p class="error" role="alert">([^<]*)</p>', index)
    assert any("half-written or damaged" in e for e in errors), errors
    assert any("malformed" in e or "not a" in e for e in errors), errors
    for folder, words in (
        ("broken/truncated", "malformed"),
        ("broken/half-written", "half-written"),
    ):
        page = client.get("/" + _run_key(client, folder))
        assert page.status_code == 200 and words in page.text


def test_model_text_is_escaped_in_the_html(client: TestClient) -> None:
    key = _run_key(client, "hostile")[4:-5]
    page = client.get(f"/stories-{key}-all-1.html").text
    assert "<script>window.pwned" not in page and "<img" not in page
    assert 'onerror="' not in page and "<b onmouseover" not in page
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    word = b"rachel".hex()
    words = client.get(f"/words-{key}-{word}-1.html").text
    assert "<mark>Rachel</mark>" in words and "&lt;/script&gt;&lt;img" in words
    assert HOSTILE not in words


def test_texts_are_paginated(client: TestClient, view_tree: Tree) -> None:  # noqa: F811
    store = view_tree.words / "run.sqlite"
    first, second = word_page(store, "she", 1, size=5), word_page(store, "she", 2, size=5)
    assert len(first.rows) == 5 and first.has_next
    assert [t.text for t in first.rows] != [t.text for t in second.rows]
    assert all(t.text[a:b].lower().startswith("she") for t in first.rows for a, b in t.marks)
    key = _run_key(client, "more-of-the-same")[4:-5]
    page = client.get(f"/words-{key}-{b'she'.hex()}-1.html").text
    assert f"words-{key}-{b'she'.hex()}-2.html" in page  # a next page


def test_viewing_every_page_writes_nothing(
    view_tree: Tree,  # noqa: F811
    tmp_path: Path,
) -> None:
    before = snapshot(view_tree.root)
    client = TestClient(build_app([view_tree.root]))
    seen, todo = set(), ["index.html"]
    while todo and len(seen) < 400:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        response = client.get("/" + name)
        assert response.status_code == 200, name
        if name.endswith(".html") and not name.startswith("files/"):
            todo += re.findall(r'href="([^"#?:]+)"', response.text)
    assert any(n.startswith("pairs-") for n in seen) and any(n.startswith("job-") for n in seen)
    assert any(n.startswith("stories-") for n in seen) and any(n.startswith("words-") for n in seen)
    export_site([view_tree.root], tmp_path / "site")
    assert snapshot(view_tree.root) == before
    with pytest.raises(ConfigError, match="never writes there"):
        export_site([view_tree.root], view_tree.root / "site")
    assert not (view_tree.root / "site").exists()


def test_the_pairs_page_shows_both_answers_side_by_side(client: TestClient) -> None:
    audit = re.search(
        r'href="(audit-[0-9a-f]{12})\.html">releases/release-1<', client.get("/").text
    )
    assert audit
    page = client.get(f"/{audit.group(1)}.html").text
    link = re.search(r'href="(pairs-[^"]+)"', page)
    assert link
    every = client.get("/" + link.group(1).replace("-differ-", "-all-")).text
    assert "<th>a</th><th>b</th>" in every and every.count('<bdi class="text">') >= 2


def test_another_host_is_warned_about(
    monkeypatch: pytest.MonkeyPatch,
    view_tree: Tree,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: served.append(sockets))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        address = view([view_tree.root], host="0.0.0.0", open_browser=False)
    assert any("other machines" in str(w.message) for w in caught)
    assert address.startswith("http://0.0.0.0:") and served
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        address = view([view_tree.root], open_browser=False)
    assert address.startswith("http://127.0.0.1:") and not caught
    assert address in capsys.readouterr().err
    with pytest.raises(ConfigError, match="not a folder"):
        view([view_tree.root / "nowhere"], open_browser=False)


def test_a_scorecard_of_another_shape_is_said_on_its_page(tmp_path: Path) -> None:
    folder = tmp_path / "odd-audit"
    folder.mkdir()
    (folder / "scorecard.json").write_text(
        '{"models": [{"name": "a"}], "comparisons": [1, 2], "metrics": "none"}', encoding="utf-8"
    )
    client = TestClient(build_app([tmp_path]))
    index = client.get("/")
    assert index.status_code == 200 and "odd-audit" in index.text
    key = re.search(r'href="(audit-[0-9a-f]{12}\.html)"', index.text)
    assert key
    page = client.get("/" + key.group(1))
    assert page.status_code == 200
    assert "is not a gasp scorecard" in page.text and 'class="error"' in page.text


def test_raw_dot_dot_paths_on_the_wire_are_404(view_tree: Tree) -> None:  # noqa: F811
    """Paths sent as they are (no client normalising ``..``) to the real server."""
    import http.client
    from urllib.parse import urlsplit

    from _view_server import serving

    with serving([view_tree.root]) as url:
        where = urlsplit(url)
        for path in (
            "/files/0/../outside/secret.html",
            "/files/0/releases/../../outside/secret.html",
            "/../outside/secret.html",
            "/files/0/./occugender/run.sqlite",
        ):
            conn = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            conn.close()
            assert response.status == 404, path
            assert b"SECRET" not in body
