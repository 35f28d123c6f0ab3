"""The real Python auth client (`supabase_auth` from PyPI) against the real radar daemon.

Starts `radar serve` on a temporary data directory and a free port on 127.0.0.1, then
goes through sign-up, sign-in, the user, refresh and sign-out with the implicit flow, and
a password reset by mailed link with the PKCE flow: the link (read from the daemon's
outbox with `radar outbox list --json`) lands with `?code=`, which
`exchange_code_for_session` trades for a session with the verifier the client kept.

    RADAR_BIN=target/debug/radar python3 -m pytest -q tests/python
"""

import json
import os
import re
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import pytest
from supabase_auth import SyncGoTrueClient, SyncMemoryStorage
from supabase_auth.errors import AuthApiError

RADAR_BIN = os.environ.get("RADAR_BIN", "target/debug/radar")
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def daemon():
    assert os.path.exists(RADAR_BIN), f"no radar binary at {RADAR_BIN}: cargo build -p radar-cli"
    data = tempfile.mkdtemp(prefix="radar-python-")
    proc = subprocess.Popen(
        [RADAR_BIN, "--data", data, "serve", "--addr", "127.0.0.1:0", "--no-demo", "--no-feed-polling"],
        stdout=subprocess.PIPE,
        env={**os.environ, "RADAR_LOG": "warn"},
        text=True,
    )
    base = key = None
    for line in proc.stdout:
        if line.startswith("listening on "):
            base = line[len("listening on "):].strip()
        if line.startswith("anon key: "):
            key = line[len("anon key: "):].strip()
        if base and key:
            break
    assert base and key, "radar serve did not print its address and key"
    yield {"base": base, "key": key, "data": data}
    proc.terminate()
    proc.wait(timeout=30)


def client(daemon, flow_type):
    return SyncGoTrueClient(
        url=f"{daemon['base']}/auth/v1",
        headers={"apikey": daemon["key"]},
        storage=SyncMemoryStorage(),
        flow_type=flow_type,
        auto_refresh_token=False,
    )


def api_status(daemon, token):
    req = urllib.request.Request(f"{daemon['base']}/api/favorites", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req) as res:
            return res.status
    except urllib.error.HTTPError as e:
        return e.code


def last_link_to(daemon, email):
    out = subprocess.run(
        [RADAR_BIN, "--data", daemon["data"], "outbox", "list", "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    mail = next(m for m in json.loads(out.stdout) if m["to"] == email)
    return re.search(r"https?://\S+", mail["text"]).group(0)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def follow(link):
    """Opens a mailed link as a browser would, without following the redirect."""
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(link)
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Location"]
    raise AssertionError(f"{link} did not redirect")


def test_implicit_flow_sign_up_sign_in_user_refresh_and_sign_out(daemon):
    auth = client(daemon, "implicit")
    up = auth.sign_up({"email": "ada@example.com", "password": PASSWORD, "options": {"data": {"name": "Ada"}}})
    assert up.session is not None and up.user.email == "ada@example.com"
    assert up.user.user_metadata["name"] == "Ada"
    with pytest.raises(AuthApiError) as taken:
        auth.sign_up({"email": "ADA@example.com", "password": PASSWORD})
    assert taken.value.code == "user_already_exists"

    signed_in = auth.sign_in_with_password({"email": "ada@example.com", "password": PASSWORD})
    assert auth.get_user().user.id == up.user.id
    refreshed = auth.refresh_session()
    assert refreshed.session.refresh_token != signed_in.session.refresh_token
    assert api_status(daemon, refreshed.session.access_token) == 200
    with pytest.raises(AuthApiError) as wrong:
        auth.sign_in_with_password({"email": "ada@example.com", "password": "wrong password"})
    assert wrong.value.code == "invalid_credentials"
    auth.sign_out()
    assert api_status(daemon, refreshed.session.access_token) == 401


def test_pkce_password_reset_through_the_mailed_link(daemon):
    auth = client(daemon, "pkce")
    email = "pkce@example.com"
    auth.sign_up({"email": email, "password": PASSWORD})
    auth.sign_out()

    reset_page = f"{daemon['base']}/reset-password"
    auth.reset_password_for_email(email, {"redirect_to": reset_page})
    link = last_link_to(daemon, email)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["token"][0].startswith("pkce_")
    status, location = follow(link)
    assert status == 303
    landed = urllib.parse.urlsplit(location)
    assert f"{landed.scheme}://{landed.netloc}{landed.path}" == reset_page
    assert landed.fragment == ""
    code = urllib.parse.parse_qs(landed.query)["code"][0]

    session = auth.exchange_code_for_session({"auth_code": code}).session
    assert session.user.email == email
    assert api_status(daemon, session.access_token) == 200
    auth.update_user({"password": "a new password"})
    auth.sign_out()
    assert auth.sign_in_with_password({"email": email, "password": "a new password"}).session is not None

    # The code is spent: exchanging it again is GoTrue's flow_state_not_found.
    other = client(daemon, "pkce")
    with pytest.raises(AuthApiError) as spent:
        other.exchange_code_for_session({"auth_code": code, "code_verifier": "x" * 56})
    assert spent.value.code == "flow_state_not_found"
