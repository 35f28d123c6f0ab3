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


def _store_env():
    """The environment of a daemon and its commands: with $RADAR_TEST_PG (a server started
    by tests/pg/server.sh), a fresh database of that server as the store."""
    env = {k: v for k, v in os.environ.items() if k != "RADAR_STORE"}
    env["RADAR_LOG"] = "warn"
    server = os.environ.get("RADAR_TEST_PG")
    if server:
        here = os.path.dirname(os.path.abspath(__file__))
        env["RADAR_STORE"] = subprocess.run(
            ["bash", os.path.join(here, "..", "pg", "server.sh"), "database", server],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    return env


def _serve(*args):
    assert os.path.exists(RADAR_BIN), f"no radar binary at {RADAR_BIN}: cargo build -p radar-cli"
    data = tempfile.mkdtemp(prefix="radar-python-")
    env = _store_env()
    proc = subprocess.Popen(
        [RADAR_BIN, "--data", data, "serve", "--addr", "127.0.0.1:0", "--no-demo", "--no-feed-polling", *args],
        stdout=subprocess.PIPE,
        env=env,
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
    return proc, {"base": base, "key": key, "data": data, "env": env}


@pytest.fixture(scope="module")
def daemon():
    proc, d = _serve()
    yield d
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def secure_daemon():
    """A daemon whose password changes need the reauthentication nonce."""
    proc, d = _serve("--secure-password-change", "--reauthentication-window", "0")
    yield d
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


def last_mail_to(daemon, email):
    out = subprocess.run(
        [RADAR_BIN, "--data", daemon["data"], "outbox", "list", "--json"],
        env=daemon["env"],
        check=True,
        capture_output=True,
        text=True,
    )
    return next(m for m in json.loads(out.stdout) if m["to"] == email)["text"]


def last_link_to(daemon, email):
    return re.search(r"https?://\S+", last_mail_to(daemon, email)).group(0)


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


def test_email_change_confirmed_from_both_addresses(daemon):
    """GoTrue internal/api/user.go and verify.go: update_user({"email"}) answers
    new_email; the first followed link lands with GoTrue's "Confirmation link accepted"
    message, the second with a session of the changed account."""
    auth = client(daemon, "implicit")
    auth.sign_up({"email": "old@example.com", "password": PASSWORD})
    user = auth.update_user({"email": "new@example.com"}).user
    assert user.email == "old@example.com" and user.new_email == "new@example.com"

    status, first = follow(last_link_to(daemon, "new@example.com"))
    assert status == 303
    assert "Confirmation link accepted" in urllib.parse.unquote_plus(urllib.parse.urlsplit(first).fragment)
    status, last = follow(last_link_to(daemon, "old@example.com"))
    fragment = urllib.parse.parse_qs(urllib.parse.urlsplit(last).fragment)
    assert fragment["type"] == ["email_change"]
    assert auth.get_user().user.email == "new@example.com", "the session from before stays valid"
    assert "changed" in last_mail_to(daemon, "old@example.com"), "a notice to the old address"
    auth.sign_out()
    assert auth.sign_in_with_password({"email": "new@example.com", "password": PASSWORD}).session


def test_reauthentication_nonce_guards_the_password_change(secure_daemon):
    """GoTrue internal/api/reauthenticate.go and user.go: reauthenticate() mails a nonce
    that update_user({"password", "nonce"}) needs with secure password change on."""
    auth = client(secure_daemon, "implicit")
    auth.sign_up({"email": "nonce@example.com", "password": PASSWORD})
    with pytest.raises(AuthApiError) as needed:
        auth.update_user({"password": "another password"})
    assert needed.value.code == "reauthentication_needed"
    auth.reauthenticate()
    nonce = re.search(r"\b\d{6}\b", last_mail_to(secure_daemon, "nonce@example.com")).group(0)
    auth.update_user({"password": "another password", "nonce": nonce})
    auth.sign_out()
    assert auth.sign_in_with_password({"email": "nonce@example.com", "password": "another password"}).session
