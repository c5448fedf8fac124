"""Bad base URLs, credentials in URLs and a key over plain http: one line, exit 2, no secret.

Run as real ``ctxtui compact`` processes; the servers, where one is needed, are real sockets.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ctxtui.samples import samples_dir
from tests.llm.hostile import hostile
from tests.llm.server import Behaviour, serve

SESSION = samples_dir() / "coding_agent_overflow.json"
SMALL = ["--context-window", "32768", "--max-tokens", "4096"]
KEY = "sk-test-SECRET-0123456789"


def compact(url: str, *extra: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    argv = [
        sys.executable, "-m", "ctxtui", "compact", str(SESSION), *SMALL,
        "--summarizer", "openai", "--llm-base-url", url, "--llm-model", "m",
        "--llm-timeout", "2", *extra,
    ]  # fmt: skip
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, env={**base, **(env or {})}
    )
    return result.returncode, result.stderr


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:abc/v1", "not a valid URL"),
        ("http://[::1:18080/v1", "not a valid URL"),
        ("http://127.0.0.1:18080/\x1b]0;pwned\x07v1", "control characters"),
        ("ftp://127.0.0.1/v1", "expected an http(s) URL"),
        ("http:///v1", "expected a host"),
        ("http://127.0.0.1:99999/v1", "not a valid URL"),
    ],
)
def test_a_malformed_base_url_is_one_line_and_exit_2(url: str, words: str) -> None:
    code, err = compact(url)
    assert code == 2, err
    assert words in err
    assert len(err.strip().splitlines()) == 1, err
    assert "\x1b" not in err and "\x07" not in err


def test_credentials_in_the_url_are_never_printed() -> None:
    with serve(Behaviour(mode="status", status=401)) as (url, _):
        secret_url = url.replace("http://", f"http://user:{KEY}@") + "?api_key=" + KEY
        code, err = compact(secret_url)
    assert code == 2
    assert KEY not in err and "user:" not in err
    code, err = compact(f"http://user:{KEY}@127.0.0.1:1/v1")  # nothing listens there
    assert code == 2 and "cannot reach http://127.0.0.1:1/v1" in err
    assert KEY not in err


@pytest.mark.parametrize(
    "url",
    [
        f"http://[::1/v1?key={KEY}",
        f"http://127.0.0.1:99999/v1?api_key={KEY}#{KEY}",
        f"http://user:{KEY}@[::1:18080/v1?key={KEY}",
        f"http://127.0.0.1:abc/v1?key={KEY}",
        f"ftp://127.0.0.1/v1?key={KEY}",
        f"http://a b/v1?key={KEY}",
    ],
)
def test_a_malformed_url_hides_its_query_and_credentials(url: str) -> None:
    code, err = compact(url)
    assert code == 2, err
    assert KEY not in err, err
    assert "/v1" in err


def test_a_key_is_not_sent_over_plain_http_to_another_host() -> None:
    # 192.0.2.1 is TEST-NET-1: nothing answers there, and the refusal comes before any send.
    code, err = compact("http://192.0.2.1:8080/v1", env={"OPENAI_API_KEY": KEY})
    assert code == 2
    assert "refusing to send OPENAI_API_KEY in clear text" in err and "--llm-allow-http" in err
    assert KEY not in err and len(err.strip().splitlines()) == 1


def test_a_key_goes_over_http_to_loopback_or_when_allowed() -> None:
    with serve() as (url, behaviour):
        code, err = compact(url, env={"OPENAI_API_KEY": KEY})
        assert code == 0, err
        assert behaviour.headers[0]["Authorization"] == f"Bearer {KEY}"
    with serve() as (url, behaviour):
        lan = url.replace("127.0.0.1", "127.0.0.2")  # not a loopback *name*: the flag decides
        code, err = compact(lan, env={"OPENAI_API_KEY": KEY})
        assert code == 2 and "clear text" in err
        code, err = compact(lan, "--llm-allow-http", env={"OPENAI_API_KEY": KEY})
        assert "clear text" not in err and "cannot reach http://127.0.0.2" in err  # it tried


def test_a_key_the_server_echoes_back_is_not_printed() -> None:
    with hostile("echo-key") as (url, _):
        code, err = compact(url, env={"OPENAI_API_KEY": KEY})
    assert code == 2 and "HTTP 401 (Incorrect API key provided: [the key])" in err
    assert KEY not in err


def test_the_timeout_help_says_how_long_the_default_waits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two attempts of the default timeout: ``--help`` names the whole wait, not only 60 s."""
    from ctxtui.cli.main import main
    from ctxtui.llm.client import DEFAULT_TIMEOUT

    for argv in (["compact", "--help"], ["--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())
        assert f"the default, {DEFAULT_TIMEOUT:g}, can wait {2 * DEFAULT_TIMEOUT:g} s" in text
