//! The auth service's last differences from GoTrue (issue #29), against the real binary:
//! error bodies per API version, redirect globs, repeat sign-ups, validation codes,
//! e-mail change, reauthentication, and the two places where Radar keeps its own answer
//! (`/recover` for unknown addresses, the 72-byte limit for new passwords only). Each
//! test names the GoTrue file (supabase/auth, `internal/api/…`) whose answer it expects.

use serde_json::{Value, json};

use crate::auth::{
    PASSWORD, Received, Reply, access, auth, exchange, fragment, grant, mailing_daemon, next_mail,
    open_link, pkce_pair, query, refresh_token, sign_in,
};
use crate::util::{Daemon, answer};

const FIRST_OF_TWO: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/// A request to `/auth/v1` with `X-Supabase-Api-Version: version`.
async fn versioned(d: &Daemon, version: &str, path: &str, body: Value) -> Reply {
    let res = d
        .http
        .post(d.url(&format!("/auth/v1{path}")))
        .header("apikey", &d.anon_key)
        .header("x-supabase-api-version", version)
        .json(&body)
        .send()
        .await
        .unwrap();
    let headers = res.headers().clone();
    let (status, body) = answer(res).await;
    Reply {
        status,
        body,
        headers,
    }
}

fn header<'a>(r: &'a Reply, name: &str) -> Option<&'a str> {
    r.headers.get(name).map(|v| v.to_str().unwrap())
}

/// GoTrue internal/api/errors.go `HandleResponseError`: without the header (or with a
/// date before 2024-01-01, or not a date) `{"code": <status>, "error_code", "msg"}`;
/// with `2024-01-01` or later `{"code": <error code>, "message"}` and the version
/// echoed; `x-sb-error-code` either way. Answers that are not errors carry no version.
#[tokio::test]
async fn error_bodies_follow_the_api_version_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let wrong = json!({"email": "nobody@example.com", "password": "wrong password"});
    let path = "/token?grant_type=password";

    let old = sign_in(&d, "nobody@example.com", "wrong password").await;
    assert_eq!(old.error(400), "invalid_credentials");
    assert_eq!(old.body["msg"], "Invalid login credentials");
    assert!(old.body.get("message").is_none(), "{}", old.body);
    for version in ["2023-12-31", "not-a-date"] {
        let r = versioned(&d, version, path, wrong.clone()).await;
        assert_eq!(r.error(400), "invalid_credentials", "{version}");
    }

    for version in ["2024-01-01", "2026-11-26"] {
        let r = versioned(&d, version, path, wrong.clone()).await;
        assert_eq!(r.status, 400);
        assert_eq!(
            r.body,
            json!({"code": "invalid_credentials", "message": "Invalid login credentials"}),
            "{version}"
        );
        assert_eq!(header(&r, "x-supabase-api-version"), Some("2024-01-01"));
        assert_eq!(header(&r, "x-sb-error-code"), Some("invalid_credentials"));
    }

    let weak = json!({"email": "weak@example.com", "password": "abc"});
    let r = versioned(&d, "2024-01-01", "/signup", weak.clone()).await;
    assert_eq!(r.status, 422);
    assert_eq!(r.body["code"], "weak_password");
    assert_eq!(r.body["weak_password"]["reasons"], json!(["length"]));
    assert!(r.body["message"].as_str().unwrap().contains("6 characters"));
    let r = auth(&d, "POST", "/signup", None, Some(weak)).await;
    assert_eq!(r.error(422), "weak_password");
    assert_eq!(r.body["weak_password"]["reasons"], json!(["length"]));

    // Unknown routes and rejected keys go through the same layer.
    let r = versioned(&d, "2024-01-01", "/no-such-thing", json!({})).await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (404, Some("not_found"))
    );
    let settings = d
        .http
        .get(d.url("/auth/v1/settings"))
        .header("apikey", &d.anon_key)
        .header("x-supabase-api-version", "2024-01-01")
        .send()
        .await
        .unwrap();
    assert_eq!(settings.status(), 200);
    assert!(settings.headers().get("x-supabase-api-version").is_none());
}

/// Where a failed link lands: the allowed target, or the site URL.
async fn lands_on(d: &Daemon, redirect_to: &str) -> String {
    let link = reqwest::Url::parse_with_params(
        &d.url("/auth/v1/verify"),
        [
            ("type", "recovery"),
            ("token", "not-a-token"),
            ("redirect_to", redirect_to),
        ],
    )
    .unwrap();
    let (status, location) = open_link(link.as_str()).await;
    assert_eq!(status, 303, "{redirect_to}");
    location.split('#').next().unwrap().to_string()
}

/// GoTrue internal/utilities/request.go `IsRedirectURLValid` with the allow list
/// compiled as conf/configuration.go does (`glob.MustCompile(uri, '.', '/')`): `*`
/// within a part, `**` across parts, exact without a wildcard. Radar's difference:
/// loopback hosts and the site's host on another port only with `--redirect-loopback`.
#[tokio::test]
async fn redirect_allow_list_entries_are_globs_and_loopback_waits_for_its_flag() {
    let dir = tempfile::tempdir().unwrap();
    let allow = "http://localhost:4000/**,https://*.example.test/cb,http://127.0.0.1:8/**";
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--redirect-allow", allow],
        &[],
    );
    let site = format!("{}/", d.base);
    for (wanted, allowed) in [
        ("http://localhost:4000/a/b", true),
        ("http://localhost:4000/a", true),
        ("https://app.example.test/cb", true),
        ("https://app.example.test/cbx", false),
        ("https://a.b.example.test/cb", false),
        ("http://localhost:4001/a", false),
        ("https://evil.test/http://localhost:4000/a", false),
        // A loopback IP is allowed by an entry (GoTrue allows any loopback IP).
        ("http://127.0.0.1:8/cb", true),
    ] {
        let expected = if allowed { wanted } else { site.as_str() };
        assert_eq!(lands_on(&d, wanted).await, expected, "{wanted}");
    }
    // The site's own origin always; its host on another port not without the flag.
    let own = format!("{}/somewhere", d.base);
    assert_eq!(lands_on(&d, &own).await, own);
    let other_port = "http://127.0.0.1:9/cb";
    assert_eq!(lands_on(&d, other_port).await, site);
    assert_eq!(lands_on(&d, "http://localhost:9/cb").await, site);
    drop(d);

    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--redirect-loopback"],
        &[],
    );
    assert_eq!(lands_on(&d, other_port).await, other_port);
    assert_eq!(
        lands_on(&d, "http://localhost:9/cb").await,
        "http://localhost:9/cb"
    );
    assert_eq!(
        lands_on(&d, "http://10.1.2.3/cb").await,
        format!("{}/", d.base)
    );
}

/// Confirms a fresh sign-up of `email` through its mailed link.
async fn confirmed(
    d: &Daemon,
    mails: &mut tokio::sync::mpsc::UnboundedReceiver<Received>,
    email: &str,
) {
    let up = auth(
        d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": email, "password": PASSWORD})),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.body);
    let (status, _) = open_link(&next_mail(mails).await.link()).await;
    assert_eq!(status, 303);
}

/// GoTrue internal/api/signup.go `sanitizeUser`: signing up again with a confirmed
/// address answers a user with `identities: []`, which apps read as "already
/// registered". Radar's stand-in for an unconfirmed address keeps an identity, as a
/// fresh sign-up's answer has.
#[tokio::test]
async fn signing_up_again_with_a_confirmed_address_answers_no_identities() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--confirm-email"]).await;
    confirmed(&d, &mut mails, "ada@example.com").await;
    let again = json!({"email": "ada@example.com", "password": "another secret"});
    let r = auth(&d, "POST", "/signup", None, Some(again)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["identities"], json!([]));
    assert_eq!(r.body["email"], "ada@example.com");

    let fresh = json!({"email": "bob@example.com", "password": PASSWORD});
    let first = auth(&d, "POST", "/signup", None, Some(fresh.clone())).await;
    assert_eq!(first.body["identities"].as_array().unwrap().len(), 1);
    let unconfirmed_again = auth(&d, "POST", "/signup", None, Some(fresh)).await;
    assert_eq!(
        unconfirmed_again.body["identities"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// GoTrue's validation answers: signup.go and token.go refuse both an e-mail and a
/// phone (400 `validation_failed`); user.go refuses `app_metadata` from a user (403
/// `not_admin`); verify.go's `VerifyParams.Validate` answers `GET /verify` without type
/// or token, and `POST /verify` with both or neither of token and token_hash, 400 JSON;
/// verify.go's `verifyTokenHash` takes a recovery token for `type=email`.
#[tokio::test]
async fn validation_answers_are_gotrues() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &[]).await;
    let both = json!({"email": "ada@example.com", "phone": "+15555550100", "password": PASSWORD});
    let up = auth(&d, "POST", "/signup", None, Some(both.clone())).await;
    assert_eq!(up.error(400), "validation_failed");
    assert_eq!(
        up.body["msg"],
        "Only an email address or phone number should be provided on signup."
    );
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    let login = grant(&d, "password", both).await;
    assert_eq!(login.error(400), "validation_failed");
    assert_eq!(
        login.body["msg"],
        "Only an email address or phone number should be provided on login."
    );

    let admin = json!({"app_metadata": {"role": "admin"}, "data": {"name": "Ada"}});
    let r = auth(&d, "PUT", "/user", Some(&a), Some(admin)).await;
    assert_eq!(r.error(403), "not_admin");
    let me = auth(&d, "GET", "/user", Some(&a), None).await;
    assert!(
        me.body["user_metadata"].get("name").is_none(),
        "nothing changed"
    );

    for (q, msg) in [
        ("token=abc", "Verify requires a verification type"),
        ("type=recovery", "Verify requires a token or a token hash"),
    ] {
        let res = d
            .http
            .get(d.url(&format!("/auth/v1/verify?{q}")))
            .send()
            .await
            .unwrap();
        let headers = res.headers().clone();
        let (status, body) = answer(res).await;
        let r = Reply {
            status,
            body,
            headers,
        };
        assert_eq!(r.error(400), "validation_failed", "{q}");
        assert_eq!(r.body["msg"], msg);
    }

    let recover = auth(
        &d,
        "POST",
        "/recover",
        None,
        Some(json!({"email": "ada@example.com"})),
    )
    .await;
    assert_eq!(recover.status, 200);
    let token = crate::auth::link_token(&next_mail(&mut mails).await.link());
    for body in [
        json!({"type": "email", "token": token, "token_hash": token}),
        json!({"type": "email"}),
    ] {
        let r = auth(&d, "POST", "/verify", None, Some(body)).await;
        assert_eq!(r.error(400), "validation_failed");
        assert_eq!(
            r.body["msg"],
            "Verify requires either a token or a token hash"
        );
    }
    let r = auth(
        &d,
        "POST",
        "/verify",
        None,
        Some(json!({"type": "email", "token_hash": token})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["user"]["email"], "ada@example.com");
    assert!(!access(&r.body).is_empty());
}

/// The mails of one e-mail change: (to the new address, to the current one if any).
async fn change_mails(
    mails: &mut tokio::sync::mpsc::UnboundedReceiver<Received>,
    new: &str,
    double: bool,
) -> (String, Option<String>) {
    let mut to_new = None;
    let mut to_current = None;
    for _ in 0..=usize::from(double) {
        let m = next_mail(mails).await;
        if m.to == new {
            to_new = Some(m.link());
        } else {
            to_current = Some(m.link());
        }
    }
    (to_new.expect("a mail to the new address"), to_current)
}

/// GoTrue internal/api/user.go (`PUT /user {"email"}` answers the user with
/// `new_email`), mail.go `sendEmailChange` (secure change: both addresses get a link)
/// and verify.go `emailChangeVerify` (the first link answers `singleConfirmationAccepted`,
/// the last changes the address and signs in; the old address gets a notice). The
/// sessions from before stay valid.
#[tokio::test]
#[allow(
    clippy::many_single_char_names,
    reason = "the daemon and its sessions, named by letter"
)]
async fn an_email_change_needs_both_addresses_and_keeps_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &[]).await;
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    let b = d.sign_in("ada@example.com", PASSWORD).await;

    let r = auth(
        &d,
        "PUT",
        "/user",
        Some(&a),
        Some(json!({"email": " Ada.New@Example.com "})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["email"], "ada@example.com");
    assert_eq!(r.body["new_email"], "ada.new@example.com");
    assert!(r.body["email_change_sent_at"].is_string());
    let (to_new, to_current) = change_mails(&mut mails, "ada.new@example.com", true).await;
    let to_current = to_current.expect("secure change mails the current address too");
    assert!(to_new.contains("type=email_change"), "{to_new}");

    let first = crate::auth::follow(&to_new, &d.base).await;
    assert_eq!(fragment(&first)["message"], FIRST_OF_TWO);
    assert!(!first.contains("access_token"), "{first}");
    assert_eq!(sign_in(&d, "ada@example.com", PASSWORD).await.status, 200);
    assert_eq!(
        sign_in(&d, "ada.new@example.com", PASSWORD).await.status,
        400
    );

    let last = crate::auth::follow(&to_current, &d.base).await;
    let f = fragment(&last);
    assert_eq!(f["type"], "email_change");
    let me = auth(&d, "GET", "/user", Some(&f["access_token"]), None).await;
    assert_eq!(me.body["email"], "ada.new@example.com");
    assert!(me.body.get("new_email").is_none(), "{}", me.body);

    let notice = next_mail(&mut mails).await;
    assert_eq!(notice.to, "ada@example.com");
    assert!(
        notice.body.contains("ada.new@example.com"),
        "{}",
        notice.body
    );

    for old in [&a, &b] {
        let me = auth(&d, "GET", "/user", Some(old), None).await;
        assert_eq!(me.status, 200, "sessions stay valid: {}", me.body);
        assert_eq!(me.body["email"], "ada.new@example.com");
    }
    assert_eq!(
        sign_in(&d, "ada.new@example.com", PASSWORD).await.status,
        200
    );
    assert_eq!(sign_in(&d, "ada@example.com", PASSWORD).await.status, 400);
    let again = crate::auth::follow(&to_current, &d.base).await;
    assert_eq!(fragment(&again)["error_code"], "otp_expired");
}

/// `--single-email-change-confirm` (GoTrue's `MAILER_SECURE_EMAIL_CHANGE_ENABLED=false`):
/// only the new address gets a link. resend.go: `/resend {"type":"email_change"}` with
/// the current address mails it again and the older link stops working; verify.go
/// answers `POST /verify {"type":"email_change","token_hash"}` with a session. A PKCE
/// request lands with `?code=`.
#[tokio::test]
async fn a_single_confirmation_change_resends_and_verifies_by_post_or_pkce() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--single-email-change-confirm"]).await;
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    let change = json!({"email": "ada2@example.com"});
    let r = auth(&d, "PUT", "/user", Some(&a), Some(change)).await;
    assert_eq!(r.body["new_email"], "ada2@example.com");
    let (first, current) = change_mails(&mut mails, "ada2@example.com", false).await;
    assert!(current.is_none());

    let resend = json!({"type": "email_change", "email": "ada@example.com"});
    let r = auth(&d, "POST", "/resend", None, Some(resend)).await;
    assert_eq!((r.status, &r.body), (200, &json!({})));
    let (second, _) = change_mails(&mut mails, "ada2@example.com", false).await;
    let stale = json!({"type": "email_change", "token_hash": crate::auth::link_token(&first)});
    assert_eq!(
        auth(&d, "POST", "/verify", None, Some(stale))
            .await
            .error(403),
        "otp_expired"
    );
    let good = json!({"type": "email_change", "token_hash": crate::auth::link_token(&second)});
    let s = auth(&d, "POST", "/verify", None, Some(good)).await;
    assert_eq!(s.status, 200, "{}", s.body);
    assert_eq!(s.body["user"]["email"], "ada2@example.com");
    assert_eq!(
        next_mail(&mut mails).await.to,
        "ada@example.com",
        "the notice"
    );

    // Nothing pending, or an unknown address: `{}` and no mail.
    let none = json!({"type": "email_change", "email": "nobody@example.com"});
    assert_eq!(
        auth(&d, "POST", "/resend", None, Some(none)).await.status,
        200
    );

    let (verifier, challenge) = pkce_pair("email-change");
    let pkce = json!({"email": "ada3@example.com", "code_challenge": challenge, "code_challenge_method": "s256"});
    let r = auth(&d, "PUT", "/user", Some(access(&s.body)), Some(pkce)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let (link, _) = change_mails(&mut mails, "ada3@example.com", false).await;
    assert!(crate::auth::link_token(&link).starts_with("pkce_"));
    let landed = crate::auth::follow(&link, &d.base).await;
    let session = exchange(&d, &query(&landed)["code"], &verifier).await;
    assert_eq!(session.status, 200, "{}", session.body);
    assert_eq!(session.body["user"]["email"], "ada3@example.com");
    assert!(!refresh_token(&session.body).is_empty());
}

/// GoTrue internal/api/user.go: an address another account has is 422 `email_exists`.
/// Radar also refuses it when the last link is followed, if another account took the
/// address in the meantime; the account keeps its address.
#[tokio::test]
async fn an_address_taken_before_confirmation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--single-email-change-confirm"]).await;
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    d.sign_up("bob@example.com", PASSWORD).await;
    let taken = json!({"email": "Bob@example.com"});
    let r = auth(&d, "PUT", "/user", Some(&a), Some(taken)).await;
    assert_eq!(r.error(422), "email_exists");
    assert_eq!(
        r.body["msg"],
        "A user with this email address has already been registered"
    );

    let later = json!({"email": "carol@example.com"});
    assert_eq!(
        auth(&d, "PUT", "/user", Some(&a), Some(later)).await.status,
        200
    );
    let (link, _) = change_mails(&mut mails, "carol@example.com", false).await;
    d.sign_up("carol@example.com", PASSWORD).await;
    let landed = crate::auth::follow(&link, &d.base).await;
    assert_eq!(fragment(&landed)["error_code"], "email_exists");
    let me = auth(&d, "GET", "/user", Some(&a), None).await;
    assert_eq!(me.body["email"], "ada@example.com");
    assert!(me.body.get("new_email").is_none(), "the change is dropped");
}

/// The six digits of a reauthentication mail.
fn nonce_of(mail: &Received) -> String {
    mail.body
        .split_whitespace()
        .find(|w| w.len() == 6 && w.bytes().all(|b| b.is_ascii_digit()))
        .expect("a code in the mail")
        .to_string()
}

/// GoTrue internal/api/reauthenticate.go (`GET /reauthenticate` mails a nonce, `{}`)
/// and user.go (with `SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`, a password
/// change in a session older than the window needs it: 400 `reauthentication_needed`,
/// 422 `reauthentication_not_valid` for a wrong or spent one).
#[tokio::test]
async fn secure_password_change_wants_the_mailed_nonce() {
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--secure-password-change", "--reauthentication-window", "0"];
    let (d, mut mails) = mailing_daemon(dir.path(), &flags).await;
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    let change = |nonce: Option<&str>| {
        let mut body = json!({"password": "a brand new secret"});
        if let Some(n) = nonce {
            body["nonce"] = json!(n);
        }
        body
    };
    let r = auth(&d, "PUT", "/user", Some(&a), Some(change(None))).await;
    assert_eq!(r.error(400), "reauthentication_needed");

    let r = auth(&d, "GET", "/reauthenticate", Some(&a), None).await;
    assert_eq!((r.status, &r.body), (200, &json!({})));
    let mail = next_mail(&mut mails).await;
    assert_eq!(mail.to, "ada@example.com");
    let nonce = nonce_of(&mail);
    let wrong = if nonce == "123456" {
        "654321"
    } else {
        "123456"
    };
    let r = auth(&d, "PUT", "/user", Some(&a), Some(change(Some(wrong)))).await;
    assert_eq!(r.error(422), "reauthentication_not_valid");
    let r = auth(&d, "PUT", "/user", Some(&a), Some(change(Some(&nonce)))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let again = json!({"password": "yet another secret", "nonce": nonce});
    let r = auth(&d, "PUT", "/user", Some(&a), Some(again)).await;
    assert_eq!(
        r.error(422),
        "reauthentication_not_valid",
        "a code works once"
    );
    // Without a password, nothing needs the code.
    let meta = json!({"data": {"name": "Ada"}});
    assert_eq!(
        auth(&d, "PUT", "/user", Some(&a), Some(meta)).await.status,
        200
    );
    drop(d);

    // The default window (24 h, as GoTrue) lets a fresh session change it without one.
    let dir = tempfile::tempdir().unwrap();
    let (d, _mails) = mailing_daemon(dir.path(), &["--secure-password-change"]).await;
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    let r = auth(&d, "PUT", "/user", Some(&a), Some(change(None))).await;
    assert_eq!(r.status, 200, "{}", r.body);
}

/// Radar's own answers where GoTrue's leak: GoTrue internal/api/recover.go answers a
/// registered address asked again within the send interval with 429 and an unknown one
/// with 200, which tells which addresses exist; Radar answers `{}` and paces every
/// address alike. GoTrue internal/api/password.go refuses passwords over 72 bytes;
/// Radar refuses them as new passwords only, so sign-in does not check the length.
#[tokio::test]
async fn recover_and_long_passwords_keep_radars_answers() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let a = d.sign_up("ada@example.com", PASSWORD).await;
    for email in ["ada@example.com", "nobody@example.com"] {
        let body = json!({"email": email});
        let r = auth(&d, "POST", "/recover", None, Some(body.clone())).await;
        assert_eq!((r.status, &r.body), (200, &json!({})), "{email}");
        let r = auth(&d, "POST", "/recover", None, Some(body)).await;
        assert_eq!(r.error(429), "over_email_send_rate_limit", "{email}");
    }

    let long = "ä".repeat(37); // 74 bytes, 37 characters
    let up = json!({"email": "long@example.com", "password": long});
    let r = auth(&d, "POST", "/signup", None, Some(up)).await;
    assert_eq!(r.error(400), "validation_failed");
    assert_eq!(
        r.body["msg"],
        "Password cannot be longer than 72 characters"
    );
    let r = auth(
        &d,
        "PUT",
        "/user",
        Some(&a),
        Some(json!({"password": long})),
    )
    .await;
    assert_eq!(r.error(400), "validation_failed");
    let r = sign_in(&d, "ada@example.com", &long).await;
    assert_eq!(
        r.error(400),
        "invalid_credentials",
        "sign-in checks no length"
    );
}
