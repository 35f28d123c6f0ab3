//! The embedded auth service (issue #3): the Supabase Auth protocol under `/auth/v1`,
//! its tokens on `/api`, and its e-mails, against the real binary. Recovery and
//! confirmation links are read from a small SMTP server the tests start on 127.0.0.1.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::util::{Daemon, answer};

pub(crate) const PASSWORD: &str = "correct horse";

/// An answer with its headers.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Value,
    pub(crate) headers: HeaderMap,
}

impl Reply {
    /// Asserts the protocol's error form of a request without `X-Supabase-Api-Version`
    /// (GoTrue errors.go, the initial version: `{"code": <status>, "error_code", "msg"}`,
    /// the code in `x-sb-error-code` and no version header) and the status; answers the
    /// error code.
    pub(crate) fn error(&self, status: u16) -> &str {
        assert_eq!(self.status, status, "unexpected answer: {}", self.body);
        assert!(
            self.headers.get("x-supabase-api-version").is_none(),
            "the version header is echoed only when asked for"
        );
        assert_eq!(
            self.body["code"], status,
            "code is the status: {}",
            self.body
        );
        assert!(
            !self.body["msg"].as_str().unwrap_or_default().is_empty(),
            "error without msg: {}",
            self.body
        );
        let code = self.body["error_code"].as_str().expect("an error_code");
        assert_eq!(
            self.headers
                .get("x-sb-error-code")
                .map(|v| v.to_str().unwrap()),
            Some(code)
        );
        code
    }
}

/// A request to `/auth/v1` with the anonymous key, an optional bearer token and body.
pub(crate) async fn auth(
    d: &Daemon,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Reply {
    let mut req = d
        .http
        .request(method.parse().unwrap(), d.url(&format!("/auth/v1{path}")))
        .header("apikey", &d.anon_key);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.unwrap();
    let headers = res.headers().clone();
    let (status, body) = answer(res).await;
    Reply {
        status,
        body,
        headers,
    }
}

/// Follows a mailed link: a 303 to a location starting with `prefix`, which it answers.
pub(crate) async fn follow(link: &str, prefix: &str) -> String {
    let (status, location) = open_link(link).await;
    assert_eq!(status, 303);
    assert!(location.starts_with(prefix), "{location}");
    location
}

/// `POST /token?grant_type=...` with `body`.
pub(crate) async fn grant(d: &Daemon, grant_type: &str, body: Value) -> Reply {
    let path = format!("/token?grant_type={grant_type}");
    auth(d, "POST", &path, None, Some(body)).await
}

pub(crate) async fn sign_in(d: &Daemon, email: &str, password: &str) -> Reply {
    grant(d, "password", json!({"email": email, "password": password})).await
}

pub(crate) async fn refresh(d: &Daemon, refresh_token: &str) -> Reply {
    grant(d, "refresh_token", json!({"refresh_token": refresh_token})).await
}

pub(crate) fn access(session: &Value) -> &str {
    session["access_token"].as_str().expect("a session")
}

pub(crate) fn refresh_token(session: &Value) -> &str {
    session["refresh_token"].as_str().expect("a session")
}

/// Status of a signed-in `/api` call with this access token.
pub(crate) async fn api_status(d: &Daemon, token: &str) -> u16 {
    d.get("/api/favorites", Some(token)).await.0
}

/// The JSON payload of a JWT (not checked: the daemon checks).
pub(crate) fn jwt_payload(token: &str) -> Value {
    let part = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&base64url_decode(part)).unwrap()
}

fn base64url_decode(s: &str) -> Vec<u8> {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in s.bytes().filter(|c| *c != b'=') {
        bits = (bits << 6) | alphabet.iter().position(|a| *a == c).unwrap() as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}

/// A client that does not follow redirects, to read `GET /verify`'s answer.
pub(crate) fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Follows an e-mailed link once; answers the status and the Location header.
pub(crate) async fn open_link(link: &str) -> (u16, String) {
    let res = no_redirects().get(link).send().await.unwrap();
    let location = res
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (res.status().as_u16(), location)
}

/// The `key=value` pairs of a URL's fragment.
pub(crate) fn fragment(location: &str) -> std::collections::HashMap<String, String> {
    let url = reqwest::Url::parse(location).unwrap();
    let as_query =
        reqwest::Url::parse(&format!("http://x/?{}", url.fragment().unwrap_or_default())).unwrap();
    as_query.query_pairs().into_owned().collect()
}

/// The `token` of an e-mailed link.
pub(crate) fn link_token(link: &str) -> String {
    reqwest::Url::parse(link)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "token")
        .unwrap()
        .1
        .into_owned()
}

// ---- A stand-in SMTP server: enough of the protocol for lettre, on 127.0.0.1. ----

/// One message as received: the envelope recipient and the decoded body.
pub(crate) struct Received {
    pub(crate) to: String,
    pub(crate) body: String,
}

impl Received {
    /// The first link to the auth service's `/verify` in the body.
    pub(crate) fn link(&self) -> String {
        let start = self.body.find("http").expect("a link in the mail");
        let link: String = self.body[start..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        assert!(link.contains("/auth/v1/verify?"), "unexpected link {link}");
        link
    }
}

/// Starts the stand-in; answers its `smtp://` URL and the stream of received messages.
pub(crate) async fn smtp_server() -> (String, mpsc::UnboundedReceiver<Received>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("smtp://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                write
                    .write_all(b"220 localhost stand-in ESMTP\r\n")
                    .await
                    .unwrap();
                let mut to = String::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    let verb = line
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 localhost\r\n",
                        "RCPT" => {
                            to = line
                                .split(['<', '>'])
                                .nth(1)
                                .unwrap_or_default()
                                .to_string();
                            b"250 OK\r\n"
                        }
                        "DATA" => {
                            write
                                .write_all(b"354 end with <CRLF>.<CRLF>\r\n")
                                .await
                                .unwrap();
                            let mut raw = Vec::new();
                            while let Ok(Some(l)) = lines.next_line().await {
                                if l == "." {
                                    break;
                                }
                                raw.push(l.strip_prefix('.').map(str::to_string).unwrap_or(l));
                            }
                            let _ = tx.send(Received {
                                to: to.clone(),
                                body: decode_mail(&raw),
                            });
                            b"250 OK queued\r\n"
                        }
                        "QUIT" => {
                            let _ = write.write_all(b"221 bye\r\n").await;
                            return;
                        }
                        _ => b"250 OK\r\n",
                    };
                    write.write_all(reply).await.unwrap();
                }
            });
        }
    });
    (url, rx)
}

/// The body of a quoted-printable message, decoded.
fn decode_mail(lines: &[String]) -> String {
    let blank = lines.iter().position(|l| l.is_empty()).unwrap_or(0);
    let qp = lines[blank..].join("\n").replace("=\n", "");
    let mut out = Vec::new();
    let bytes = qp.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(
                std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"),
                16,
            )
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) async fn next_mail(rx: &mut mpsc::UnboundedReceiver<Received>) -> Received {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a mail within 20 s")
        .unwrap()
}

// ---- The tests ----

#[tokio::test]
async fn sign_up_and_sign_in_answer_sessions_and_refuse_bad_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));

    let up = auth(
        &d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": "  Ada@Example.com ", "password": PASSWORD, "data": {"name": "Ada"}})),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.body);
    let s = &up.body;
    assert_eq!(s["token_type"], "bearer");
    assert_eq!(s["expires_in"], 3600);
    assert!(s["expires_at"].as_i64().unwrap() > 1_700_000_000);
    assert!(!refresh_token(s).is_empty());
    let user = &s["user"];
    assert_eq!(
        user["email"], "ada@example.com",
        "e-mail trimmed and lower-cased"
    );
    assert_eq!(user["aud"], "authenticated");
    assert_eq!(user["role"], "authenticated");
    assert_eq!(
        user["app_metadata"],
        json!({"provider": "email", "providers": ["email"]})
    );
    assert_eq!(user["user_metadata"]["name"], "Ada");
    assert_eq!(user["user_metadata"]["avatar_url"], Value::Null);
    assert_eq!(
        user["user_metadata"]["subscription"],
        json!({"isActive": false, "customerId": null})
    );
    assert_eq!(user["has_active_subscription"], false);
    assert_eq!(user["is_anonymous"], false);
    assert!(user["email_confirmed_at"].is_string() && user["confirmed_at"].is_string());
    for field in ["id", "created_at", "updated_at", "last_sign_in_at"] {
        assert!(user[field].is_string(), "user.{field} missing: {user}");
    }
    let claims = jwt_payload(access(s));
    assert_eq!(claims["aud"], "authenticated");
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["sub"], user["id"]);
    assert_eq!(claims["email"], "ada@example.com");
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(claims["amr"][0]["method"], "password");
    assert_eq!(claims["is_anonymous"], false);
    assert!(claims["session_id"].is_string());
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );

    // The same address again, in another case: refused.
    let again = auth(
        &d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": "ADA@example.com", "password": PASSWORD})),
    )
    .await;
    assert_eq!(again.error(422), "user_already_exists");
    let weak = auth(
        &d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": "bob@example.com", "password": "12345"})),
    )
    .await;
    assert_eq!(weak.error(422), "weak_password");
    assert_eq!(weak.body["weak_password"]["reasons"], json!(["length"]));
    let bad = auth(
        &d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": "not-an-address", "password": PASSWORD})),
    )
    .await;
    assert_eq!(bad.error(400), "validation_failed");

    // Sign-in: right password, then the same refusal for a wrong one and an unknown address.
    let s2 = sign_in(&d, " ADA@example.com", PASSWORD).await;
    assert_eq!(s2.status, 200, "{}", s2.body);
    assert_ne!(
        jwt_payload(access(&s2.body))["session_id"],
        claims["session_id"],
        "a new session"
    );
    let wrong = sign_in(&d, "ada@example.com", "wrong password").await;
    let unknown = sign_in(&d, "nobody@example.com", PASSWORD).await;
    assert_eq!(wrong.error(400), "invalid_credentials");
    assert_eq!(unknown.error(400), "invalid_credentials");
    assert_eq!(
        wrong.body, unknown.body,
        "nothing tells an unknown address from a wrong password"
    );
    assert_eq!(wrong.body["msg"], "Invalid login credentials");

    // GET /user, and the same token on /api.
    let me = auth(&d, "GET", "/user", Some(access(&s2.body)), None).await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["id"], user["id"]);
    assert_eq!(api_status(&d, access(&s2.body)).await, 200);

    // Without the anonymous key, /auth/v1 refuses.
    let res = d
        .http
        .post(d.url("/auth/v1/token?grant_type=password"))
        .json(&json!({"email": "a@b.c", "password": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(answer(res).await.1["error_code"], "no_api_key");
}

#[tokio::test]
async fn bad_tokens_are_refused_on_api_and_auth() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--jwt-expiry", "1"],
        &[],
    );
    let other = Daemon::start(&dir.path().join("other"));
    assert_ne!(
        d.anon_key, other.anon_key,
        "each install has its own secret"
    );

    let mine = d.sign_up("ada@example.com", PASSWORD).await;
    let foreign = other.sign_up("ada@example.com", PASSWORD).await;
    // Signed with another install's secret.
    assert_eq!(api_status(&d, &foreign).await, 401);
    assert_eq!(
        auth(&d, "GET", "/user", Some(&foreign), None)
            .await
            .error(403),
        "bad_jwt"
    );
    // Tampered with: the payload of one, the signature of another.
    let parts: Vec<&str> = mine.split('.').collect();
    let forged = format!(
        "{}.{}.{}",
        parts[0],
        foreign.split('.').nth(1).unwrap(),
        parts[2]
    );
    assert_eq!(api_status(&d, &forged).await, 401);
    assert_eq!(api_status(&d, "not.a.jwt").await, 401);
    // The anonymous key is not a user token.
    assert_eq!(
        auth(&d, "GET", "/user", Some(&d.anon_key), None)
            .await
            .error(403),
        "bad_jwt"
    );
    let (status, body) = d.get("/api/favorites", Some("garbage")).await;
    assert_eq!(status, 401);
    assert!(
        body["message"].is_string(),
        "the API keeps its own error form: {body}"
    );
    // Expired (this daemon's tokens live one second).
    assert_eq!(api_status(&d, &mine).await, 200);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(api_status(&d, &mine).await, 401);
    assert_eq!(
        auth(&d, "GET", "/user", Some(&mine), None).await.error(403),
        "bad_jwt"
    );
    assert_eq!(
        auth(&d, "GET", "/user", None, None).await.error(401),
        "no_authorization"
    );
}

#[tokio::test]
async fn refresh_tokens_rotate_the_parent_of_the_active_one_gets_it_back_and_reuse_ends_the_session()
 {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--refresh-reuse-interval", "1"],
        &[],
    );
    d.sign_up("ada@example.com", PASSWORD).await;
    let s0 = sign_in(&d, "ada@example.com", PASSWORD).await.body;

    let s1 = refresh(&d, refresh_token(&s0)).await;
    assert_eq!(s1.status, 200, "{}", s1.body);
    assert_ne!(refresh_token(&s1.body), refresh_token(&s0), "rotated");
    assert_eq!(
        jwt_payload(access(&s1.body))["session_id"],
        jwt_payload(access(&s0))["session_id"],
        "same session"
    );
    assert_eq!(s1.body["user"]["email"], "ada@example.com");
    assert_eq!(api_status(&d, access(&s1.body)).await, 200);

    // GoTrue token_refresh.go: another tab refreshing with the same token (the parent of
    // the active one) gets the active token back rather than a second branch...
    let parallel = refresh(&d, refresh_token(&s0)).await;
    assert_eq!(parallel.status, 200, "{}", parallel.body);
    assert_eq!(refresh_token(&parallel.body), refresh_token(&s1.body));
    // ...and so does a client that lost the answer, after the reuse interval.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let lost = refresh(&d, refresh_token(&s0)).await;
    assert_eq!(lost.status, 200, "{}", lost.body);
    assert_eq!(refresh_token(&lost.body), refresh_token(&s1.body));
    let s2 = refresh(&d, refresh_token(&s1.body)).await.body;

    // Later, a spent token that is not the parent of the active one is taken as stolen:
    // refused, and its session ends.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert_eq!(
        refresh(&d, refresh_token(&s0)).await.error(400),
        "refresh_token_already_used"
    );
    assert_eq!(
        refresh(&d, refresh_token(&s2)).await.error(400),
        "refresh_token_not_found"
    );
    assert_eq!(api_status(&d, access(&s2)).await, 401);
    assert_eq!(
        auth(&d, "GET", "/user", Some(access(&s2)), None)
            .await
            .error(403),
        "session_not_found"
    );

    // GoTrue token_refresh.go: a token that cannot be one is `validation_failed`; one of
    // the right form that is unknown is `refresh_token_not_found`.
    assert_eq!(
        refresh(&d, "no-such-token").await.error(400),
        "validation_failed"
    );
    assert_eq!(
        refresh(&d, &"x".repeat(43)).await.error(400),
        "refresh_token_not_found"
    );
    let missing = auth(
        &d,
        "POST",
        "/token?grant_type=refresh_token",
        None,
        Some(json!({})),
    )
    .await;
    assert_eq!(missing.error(400), "validation_failed");
    // GoTrue token.go: an unsupported grant type, or none, is 400 invalid_credentials.
    let magic = grant(&d, "magic", json!({})).await;
    assert_eq!(magic.error(400), "invalid_credentials");
    let none = auth(&d, "POST", "/token", None, Some(json!({}))).await;
    assert_eq!(none.error(400), "invalid_credentials");
}

#[tokio::test]
async fn logout_scopes_end_the_sessions_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    d.sign_up("ada@example.com", PASSWORD).await;
    let mut s = Vec::new();
    for _ in 0..4 {
        s.push(sign_in(&d, "ada@example.com", PASSWORD).await.body);
    }
    let other_user = d.sign_up("bob@example.com", PASSWORD).await;

    assert_eq!(
        auth(&d, "POST", "/logout?scope=local", Some(access(&s[0])), None)
            .await
            .status,
        204
    );
    assert_eq!(api_status(&d, access(&s[0])).await, 401);
    assert_eq!(
        refresh(&d, refresh_token(&s[0])).await.error(400),
        "refresh_token_not_found"
    );
    assert_eq!(api_status(&d, access(&s[1])).await, 200);

    assert_eq!(
        auth(
            &d,
            "POST",
            "/logout?scope=others",
            Some(access(&s[1])),
            None
        )
        .await
        .status,
        204
    );
    assert_eq!(
        api_status(&d, access(&s[1])).await,
        200,
        "the caller's session stays"
    );
    for gone in &s[2..] {
        assert_eq!(api_status(&d, access(gone)).await, 401);
        assert_eq!(
            refresh(&d, refresh_token(gone)).await.error(400),
            "refresh_token_not_found"
        );
    }

    let bad = auth(
        &d,
        "POST",
        "/logout?scope=everywhere",
        Some(access(&s[1])),
        None,
    )
    .await;
    assert_eq!(bad.error(400), "validation_failed");

    // Global is the default scope.
    let s4 = sign_in(&d, "ada@example.com", PASSWORD).await.body;
    assert_eq!(
        auth(&d, "POST", "/logout", Some(access(&s[1])), None)
            .await
            .status,
        204
    );
    assert_eq!(api_status(&d, access(&s[1])).await, 401);
    assert_eq!(api_status(&d, access(&s4)).await, 401);
    assert_eq!(
        api_status(&d, &other_user).await,
        200,
        "another user's sessions are untouched"
    );
    // Signing out again with the dead token: the protocol's "no session" answer.
    assert_eq!(
        auth(&d, "POST", "/logout", Some(access(&s[1])), None)
            .await
            .error(403),
        "session_not_found"
    );
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    d.sign_up("ada@example.com", PASSWORD).await;
    let a = sign_in(&d, "ada@example.com", PASSWORD).await.body;
    let b = sign_in(&d, "ada@example.com", PASSWORD).await.body;

    let same = auth(
        &d,
        "PUT",
        "/user",
        Some(access(&a)),
        Some(json!({"password": PASSWORD})),
    )
    .await;
    assert_eq!(same.error(422), "same_password");
    let weak = auth(
        &d,
        "PUT",
        "/user",
        Some(access(&a)),
        Some(json!({"password": "123"})),
    )
    .await;
    assert_eq!(weak.error(422), "weak_password");

    let changed = auth(
        &d,
        "PUT",
        "/user",
        Some(access(&a)),
        Some(json!({"password": "new password"})),
    )
    .await;
    assert_eq!(changed.status, 200, "{}", changed.body);
    assert_eq!(changed.body["email"], "ada@example.com");
    assert_eq!(
        api_status(&d, access(&a)).await,
        200,
        "the session that changed it stays"
    );
    assert_eq!(api_status(&d, access(&b)).await, 401);
    assert_eq!(
        refresh(&d, refresh_token(&b)).await.error(400),
        "refresh_token_not_found"
    );
    assert_eq!(refresh(&d, refresh_token(&a)).await.status, 200);
    assert_eq!(
        sign_in(&d, "ada@example.com", PASSWORD).await.error(400),
        "invalid_credentials"
    );
    assert_eq!(
        sign_in(&d, "ada@example.com", "new password").await.status,
        200
    );

    // Metadata: merged, null removes, the server's own keys cannot be set.
    let meta = json!({"data": {"avatar_url": "https://example.com/ada.png", "has_active_subscription": true, "subscription": {"isActive": true}}});
    let updated = auth(&d, "PUT", "/user", Some(access(&a)), Some(meta)).await;
    assert_eq!(updated.status, 200, "{}", updated.body);
    assert_eq!(
        updated.body["user_metadata"]["avatar_url"],
        "https://example.com/ada.png"
    );
    assert_eq!(
        updated.body["user_metadata"]["subscription"]["isActive"],
        false
    );
    assert_eq!(updated.body["has_active_subscription"], false);
    let me = auth(&d, "GET", "/user", Some(access(&a)), None).await;
    assert_eq!(
        me.body["user_metadata"]["avatar_url"],
        "https://example.com/ada.png"
    );
    let huge = auth(
        &d,
        "PUT",
        "/user",
        Some(access(&a)),
        Some(json!({"data": {"bio": "x".repeat(20_000)}})),
    )
    .await;
    assert_eq!(huge.error(400), "validation_failed");
}

/// A daemon that mails through a fresh SMTP stand-in, with `extra` flags. The send
/// interval is off: these tests ask for several links to one address on purpose.
pub(crate) async fn mailing_daemon(
    dir: &std::path::Path,
    extra: &[&str],
) -> (Daemon, mpsc::UnboundedReceiver<Received>) {
    let (smtp, mails) = smtp_server().await;
    let mut args = vec![
        "--no-demo",
        "--email-max-frequency",
        "0",
        "--smtp-url",
        &smtp,
    ];
    args.extend_from_slice(extra);
    (Daemon::start_with(&dir.join("data"), &args, &[]), mails)
}

/// Sets ada's new password with the session a mailed link gave: the sessions from
/// before (`old`) end, and the new password signs in.
async fn reset_password(d: &Daemon, token: &str, old: &str) {
    let reset = auth(
        d,
        "PUT",
        "/user",
        Some(token),
        Some(json!({"password": "brand new secret"})),
    )
    .await;
    assert_eq!(reset.status, 200, "{}", reset.body);
    assert_eq!(
        api_status(d, old).await,
        401,
        "the reset ends the sessions from before"
    );
    assert_eq!(
        sign_in(d, "ada@example.com", "brand new secret")
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn password_recovery_by_mail_link_once_within_its_hour() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--otp-expiry", "3"]).await;
    let old = d.sign_up("ada@example.com", PASSWORD).await;
    let reset_page = d.url("/reset-password");

    // An unknown address gets the same answer and no mail.
    let unknown = auth(
        &d,
        "POST",
        &format!("/recover?redirect_to={reset_page}"),
        None,
        Some(json!({"email": "nobody@example.com"})),
    )
    .await;
    assert_eq!((unknown.status, &unknown.body), (200, &json!({})));
    let known = auth(
        &d,
        "POST",
        &format!("/recover?redirect_to={reset_page}"),
        None,
        Some(json!({"email": " ADA@example.com"})),
    )
    .await;
    assert_eq!((known.status, &known.body), (200, &json!({})));
    let mail = next_mail(&mut mails).await;
    assert_eq!(
        mail.to, "ada@example.com",
        "the first mail is for the registered address"
    );
    let link = mail.link();
    assert!(
        link.starts_with(&format!("{}/auth/v1/verify?token=", d.base)),
        "{link}"
    );
    assert!(link.contains("type=recovery"), "{link}");

    // The link signs the user in through the fragment of the reset page.
    let location = follow(&link, &format!("{reset_page}#")).await;
    let f = fragment(&location);
    assert_eq!(f["type"], "recovery");
    assert_eq!(f["token_type"], "bearer");
    assert_eq!(f["expires_in"], "3600");
    assert!(f["expires_at"].parse::<i64>().unwrap() > 1_700_000_000);
    assert!(!f["refresh_token"].is_empty());
    let token = f["access_token"].clone();
    let me = auth(&d, "GET", "/user", Some(&token), None).await;
    assert_eq!(me.body["email"], "ada@example.com");
    // GoTrue's user carries when the last reset link was mailed.
    assert!(me.body["recovery_sent_at"].is_string(), "{}", me.body);
    assert!(me.body.get("confirmation_sent_at").is_none(), "{}", me.body);
    reset_password(&d, &token, &old).await;

    // The same link again: refused, back to the page with the protocol's error fragment.
    let location = follow(&link, &format!("{reset_page}#")).await;
    let f = fragment(&location);
    assert_eq!(f["error"], "access_denied");
    assert_eq!(f["error_code"], "otp_expired");
    assert!(!f["error_description"].is_empty());
    assert!(!f.contains_key("access_token"));

    // A redirect elsewhere is not honoured: links land on the site URL instead.
    auth(
        &d,
        "POST",
        "/recover?redirect_to=https://evil.example/steal",
        None,
        Some(json!({"email": "ada@example.com"})),
    )
    .await;
    let replaced = next_mail(&mut mails).await.link();
    assert!(!replaced.contains("evil.example"), "{replaced}");
    let (_, location) = open_link(
        &d.url("/auth/v1/verify?token=bogus&type=recovery&redirect_to=https://evil.example/"),
    )
    .await;
    assert!(
        location.starts_with(&format!("{}/#error=", d.base)),
        "open redirect: {location}"
    );
    // A newer link replaces the older one.
    auth(
        &d,
        "POST",
        "/recover",
        None,
        Some(json!({"email": "ada@example.com"})),
    )
    .await;
    let newer = next_mail(&mut mails).await.link();
    let (_, location) = open_link(&replaced).await;
    assert_eq!(
        fragment(&location)["error_code"],
        "otp_expired",
        "the older link no longer works"
    );
    let evil = format!(
        "{}/auth/v1/verify?token={}&type=recovery&redirect_to=https://evil.example/",
        d.base,
        link_token(&newer)
    );
    let (status, location) = open_link(&evil).await;
    assert_eq!(status, 303);
    assert!(
        location.starts_with(&format!("{}/#access_token=", d.base)),
        "open redirect: {location}"
    );
    // An unused link expires (3 s here).
    auth(
        &d,
        "POST",
        "/recover",
        None,
        Some(json!({"email": "ada@example.com"})),
    )
    .await;
    let newest = next_mail(&mut mails).await.link();
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let (status, location) = open_link(&newest).await;
    assert_eq!(status, 303);
    assert_eq!(
        fragment(&location)["error_code"],
        "otp_expired",
        "expired: {location}"
    );
}

#[tokio::test]
async fn confirmation_mail_when_configured() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--confirm-email"]).await;
    let up = auth(
        &d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": "ada@example.com", "password": PASSWORD})),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.body);
    assert!(
        up.body.get("access_token").is_none(),
        "no session before confirmation: {}",
        up.body
    );
    assert_eq!(up.body["email"], "ada@example.com");
    assert_eq!(up.body["email_confirmed_at"], Value::Null);
    assert_eq!(
        sign_in(&d, "ada@example.com", PASSWORD).await.error(400),
        "email_not_confirmed"
    );

    let first = next_mail(&mut mails).await.link();
    assert!(first.contains("type=signup"), "{first}");
    // Asking again sends a new link, which replaces the first.
    let resent = auth(
        &d,
        "POST",
        "/resend",
        None,
        Some(json!({"type": "signup", "email": "ada@example.com"})),
    )
    .await;
    assert_eq!((resent.status, &resent.body), (200, &json!({})));
    let link = next_mail(&mut mails).await.link();
    assert_eq!(
        fragment(&open_link(&first).await.1)["error_code"],
        "otp_expired"
    );
    let (status, location) = open_link(&link).await;
    assert_eq!(status, 303);
    let f = fragment(&location);
    assert_eq!(f["type"], "signup");
    let me = auth(&d, "GET", "/user", Some(&f["access_token"]), None).await;
    assert!(me.body["email_confirmed_at"].is_string(), "{}", me.body);
    assert_eq!(sign_in(&d, "ada@example.com", PASSWORD).await.status, 200);
    let settings = auth(&d, "GET", "/settings", None, None).await;
    assert_eq!(settings.body["mailer_autoconfirm"], false);
    // A confirmed address gets no further mail; the answer is the same.
    auth(
        &d,
        "POST",
        "/resend",
        None,
        Some(json!({"type": "signup", "email": "ada@example.com"})),
    )
    .await;
    assert!(
        tokio::time::timeout(Duration::from_millis(500), mails.recv())
            .await
            .is_err(),
        "no mail once confirmed"
    );
}

#[tokio::test]
async fn sign_in_attempts_are_rate_limited_per_address_and_ip() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    d.sign_up("ada@example.com", PASSWORD).await;
    // Ten attempts a minute per address pass (sign-ups are counted apart).
    for _ in 0..10 {
        assert_eq!(
            sign_in(&d, "ada@example.com", "wrong").await.error(400),
            "invalid_credentials"
        );
    }
    let limited = sign_in(&d, "ada@example.com", PASSWORD).await;
    assert_eq!(limited.error(429), "over_request_rate_limit");
    let wait: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    // Every attempt from this IP counts too, whatever the address; a forwarded-for
    // header does not change the IP unless the daemon is told it sits behind a proxy.
    assert_eq!(
        sign_in(&d, "bob@example.com", PASSWORD).await.error(429),
        "over_request_rate_limit"
    );
    assert_eq!(
        forwarded_sign_in(&d, "carol@example.com", "203.0.113.9").await,
        429
    );
}

/// The limit is a token bucket, not a fixed minute (which let 19 sign-ins through in
/// 2.7 s across a window's edge): after the burst, one attempt comes back every
/// 60/rate seconds, which Retry-After names, and only one.
#[tokio::test]
async fn sign_in_attempts_refill_one_at_a_time_after_the_burst() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--sign-in-rate", "30"],
        &[],
    );
    let mut passed = 0;
    let limited = loop {
        let r = sign_in(&d, "ada@example.com", "wrong").await;
        if r.status == 429 {
            break r;
        }
        assert_eq!(r.error(400), "invalid_credentials");
        passed += 1;
        assert!(passed <= 32, "no limit after {passed} attempts");
    };
    assert!(passed >= 30, "the burst is the rate: {passed}");
    assert_eq!(limited.error(429), "over_request_rate_limit");
    let wait: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..=2).contains(&wait),
        "one attempt every 2 s, not the rest of a minute: Retry-After {wait}"
    );
    tokio::time::sleep(Duration::from_millis(wait * 1000 + 200)).await;
    assert_eq!(
        sign_in(&d, "ada@example.com", "wrong").await.error(400),
        "invalid_credentials",
        "one attempt is back"
    );
    assert_eq!(
        sign_in(&d, "ada@example.com", "wrong").await.error(429),
        "over_request_rate_limit",
        "and only one"
    );
}

/// A sign-in attempt that claims to be forwarded for `ip`; answers the status.
async fn forwarded_sign_in(d: &Daemon, email: &str, ip: &str) -> u16 {
    let res = d
        .http
        .post(d.url("/auth/v1/token?grant_type=password"))
        .header("apikey", &d.anon_key)
        .header("x-forwarded-for", format!("198.51.100.1, {ip}"))
        .json(&json!({"email": email, "password": "wrong"}))
        .send()
        .await
        .unwrap();
    res.status().as_u16()
}

#[tokio::test]
async fn behind_a_proxy_the_forwarded_client_ip_is_limited() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--trust-forwarded-for"],
        &[],
    );
    // Twelve clients behind the proxy, each with its own address: none is limited.
    for n in 0..12 {
        assert_eq!(
            forwarded_sign_in(
                &d,
                &format!("user{n}@example.com"),
                &format!("203.0.113.{n}")
            )
            .await,
            400
        );
    }
    // One client trying many addresses is.
    for n in 0..10 {
        assert_eq!(
            forwarded_sign_in(&d, &format!("other{n}@example.com"), "203.0.113.200").await,
            400
        );
    }
    assert_eq!(
        forwarded_sign_in(&d, "one-more@example.com", "203.0.113.200").await,
        429
    );
}

#[tokio::test]
async fn settings_cors_and_unknown_endpoints() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--cors-origin", "http://localhost:5173"],
        &[],
    );
    let settings = auth(&d, "GET", "/settings", None, None).await;
    assert_eq!(settings.status, 200);
    // GoTrue settings.go: the same fields, and every provider it names under `external`.
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&settings.body),
        [
            "disable_signup",
            "external",
            "mailer_autoconfirm",
            "phone_autoconfirm",
            "saml_enabled",
            "sms_provider"
        ]
    );
    assert_eq!(
        keys(&settings.body["external"]).len(),
        25,
        "{}",
        settings.body
    );
    assert_eq!(settings.body["external"]["email"], true);
    for off in [
        "google",
        "zoom",
        "linkedin_oidc",
        "anonymous_users",
        "phone",
    ] {
        assert_eq!(settings.body["external"][off], false, "{off}");
    }
    assert_eq!(settings.body["mailer_autoconfirm"], true);
    assert_eq!(
        auth(&d, "GET", "/authorize?provider=google", None, None)
            .await
            .error(400),
        "provider_disabled"
    );
    assert_eq!(
        auth(&d, "GET", "/nothing-here", None, None)
            .await
            .error(404),
        "not_found"
    );

    for origin in [d.base.as_str(), "http://localhost:5173"] {
        let res = d
            .http
            .request(
                reqwest::Method::OPTIONS,
                d.url("/auth/v1/token?grant_type=password"),
            )
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "apikey,authorization,x-client-info,x-supabase-api-version,content-type",
            )
            .send()
            .await
            .unwrap();
        assert!(
            res.status().is_success(),
            "preflight from {origin}: {}",
            res.status()
        );
        let h = res.headers();
        assert_eq!(h["access-control-allow-origin"], origin);
        let allowed = h["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        for name in [
            "apikey",
            "authorization",
            "x-client-info",
            "x-supabase-api-version",
            "content-type",
        ] {
            assert!(allowed.contains(name), "{name} not allowed: {allowed}");
        }
    }
    let res = d
        .http
        .request(reqwest::Method::OPTIONS, d.url("/api/favorites"))
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert!(
        res.headers().get("access-control-allow-origin").is_none(),
        "a foreign origin is not allowed"
    );
    let res = d
        .http
        .get(d.url("/auth/v1/settings"))
        .header("apikey", &d.anon_key)
        .header("origin", d.base.as_str())
        .send()
        .await
        .unwrap();
    let exposed = res.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("x-supabase-api-version"), "{exposed}");
    assert!(exposed.contains("x-sb-error-code"), "{exposed}");
}

#[tokio::test]
async fn a_local_install_resets_a_password_from_the_outbox() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo"],
        &[("RADAR_LOG", "info")],
    );
    d.sign_up("ada@example.com", PASSWORD).await;
    let sent = auth(
        &d,
        "POST",
        "/recover",
        None,
        Some(json!({"email": "ada@example.com"})),
    )
    .await;
    assert_eq!(sent.status, 200);
    // No SMTP configured: the message waits in the outbox, which the admin command reads.
    let mails = outbox(&d);
    let mail = &mails[0];
    assert_eq!(mail["to"], "ada@example.com");
    assert_eq!(mail["kind"], "recovery");
    let text = mail["text"].as_str().unwrap();
    let link = Received {
        to: String::new(),
        body: text.to_string(),
    }
    .link();
    let (status, location) = open_link(&link).await;
    assert_eq!(status, 303);
    assert_eq!(fragment(&location)["type"], "recovery");
    let log = std::fs::read_to_string(&d.log).unwrap_or_default();
    assert!(
        log.contains("outbox"),
        "the daemon logs that it kept the mail"
    );
    assert!(
        !log.contains(&link_token(&link)),
        "the log never carries the link's token"
    );
}

#[tokio::test]
async fn the_signing_secret_is_private_stable_and_configurable() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = Daemon::start(&data);
    let (status, config) = d.get("/api/config", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        config["anonKey"],
        d.anon_key.as_str(),
        "the web app gets the printed key from the daemon"
    );
    assert_eq!(jwt_payload(&d.anon_key)["role"], "anon");
    let token = d.sign_up("ada@example.com", PASSWORD).await;
    let key = d.anon_key.clone();
    d.stop();
    // On PostgreSQL the secret is kept in the database, shared by every node.
    if !crate::util::on_postgres() {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join("jwt_secret"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o600,
            "the secret is readable by its owner only"
        );
    }
    let d = Daemon::start(&data);
    assert_eq!(d.anon_key, key, "same secret after a restart");
    assert_eq!(
        api_status(&d, &token).await,
        200,
        "sessions survive a restart"
    );
    d.stop();

    // A configured secret replaces the generated one: earlier tokens no longer verify.
    let secret = "an operator-chosen secret of at least 32 characters";
    let d = Daemon::start_with(&data, &["--no-demo"], &[("RADAR_JWT_SECRET", secret)]);
    assert_ne!(d.anon_key, key);
    assert_eq!(api_status(&d, &token).await, 401);
    let log = std::fs::read_to_string(&d.log).unwrap_or_default();
    assert!(!log.contains(secret), "the secret is never logged");
}

// ---- PKCE (GoTrue's flow for e-mailed links: flow state, `pkce_` tokens, `?code=`) ----

/// A PKCE verifier and its S256 challenge, made the way auth-js makes them.
pub(crate) fn pkce_pair(seed: &str) -> (String, String) {
    use base64::Engine;
    use sha2::Digest;
    let verifier = format!("{seed}-{}", "0123456789".repeat(5));
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

/// The `key=value` pairs of a URL's query.
pub(crate) fn query(location: &str) -> std::collections::HashMap<String, String> {
    reqwest::Url::parse(location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

/// `POST /token?grant_type=pkce`: exchanges a link's code and the verifier for a session.
pub(crate) async fn exchange(d: &Daemon, code: &str, verifier: &str) -> Reply {
    grant(
        d,
        "pkce",
        json!({"auth_code": code, "code_verifier": verifier}),
    )
    .await
}

#[tokio::test]
async fn pkce_confirmation_link_lands_with_a_code_the_verifier_exchanges_once() {
    let dir = tempfile::tempdir().unwrap();
    let (smtp, mut mails) = smtp_server().await;
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--confirm-email", "--smtp-url", &smtp],
        &[],
    );
    let (verifier, challenge) = pkce_pair("sign-up");
    let welcome = d.url("/welcome");
    // GoTrue signup.go: a sign-up carrying code_challenge + code_challenge_method starts a
    // PKCE flow; the answer is the unconfirmed user, without a session.
    let up = auth(
        &d,
        "POST",
        &format!("/signup?redirect_to={welcome}"),
        None,
        Some(json!({"email": "ada@example.com", "password": PASSWORD,
            "code_challenge": challenge, "code_challenge_method": "s256"})),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.body);
    assert!(up.body.get("access_token").is_none(), "{}", up.body);

    // GoTrue mail.go: the link's token carries the `pkce_` prefix.
    let link = next_mail(&mut mails).await.link();
    assert!(link_token(&link).starts_with("pkce_"), "{link}");
    assert!(link.contains("type=signup"), "{link}");

    // GoTrue verify.go: following a PKCE link redirects with `?code=`, no session in the
    // fragment.
    let location = follow(&link, &format!("{welcome}?code=")).await;
    assert!(!location.contains('#'), "no fragment: {location}");
    let code = query(&location)["code"].clone();

    // GoTrue token.go: a verifier that does not match the challenge is 400
    // bad_code_verifier, and the flow state stays for the right one.
    let (other, _) = pkce_pair("someone-else");
    assert_eq!(
        exchange(&d, &code, &other).await.error(400),
        "bad_code_verifier"
    );
    let s = exchange(&d, &code, &verifier).await;
    assert_eq!(s.status, 200, "{}", s.body);
    assert_eq!(s.body["token_type"], "bearer");
    assert_eq!(s.body["user"]["email"], "ada@example.com");
    assert!(
        s.body["user"]["email_confirmed_at"].is_string(),
        "the link confirmed the address: {}",
        s.body
    );
    assert_eq!(api_status(&d, access(&s.body)).await, 200);
    assert_eq!(refresh(&d, refresh_token(&s.body)).await.status, 200);

    // GoTrue token.go: the flow state is deleted on exchange; the code again is 404
    // flow_state_not_found.
    assert_eq!(
        exchange(&d, &code, &verifier).await.error(404),
        "flow_state_not_found"
    );
    // GoTrue verify.go: a spent PKCE link lands with the error in the query (where a
    // PKCE client looks) as well as in the fragment.
    let (status, location) = open_link(&link).await;
    assert_eq!(status, 303);
    let q = query(&location);
    assert_eq!(q["error"], "access_denied");
    assert_eq!(q["error_code"], "otp_expired");
    assert_eq!(fragment(&location)["error_code"], "otp_expired");
    assert!(!q.contains_key("code"), "{location}");
    assert_eq!(sign_in(&d, "ada@example.com", PASSWORD).await.status, 200);
}

#[tokio::test]
async fn pkce_recovery_code_exchanges_for_a_session_until_it_expires() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--auth-code-expiry", "2"]).await;
    let old = d.sign_up("ada@example.com", PASSWORD).await;
    let reset_page = d.url("/reset-password");
    let recover = |body: Value| {
        let d = &d;
        let path = format!("/recover?redirect_to={reset_page}");
        async move { auth(d, "POST", &path, None, Some(body)).await }
    };

    // GoTrue recover.go with the plain method: the challenge is the verifier itself.
    let (verifier, _) = pkce_pair("recovery");
    let sent = recover(json!({"email": "ada@example.com",
        "code_challenge": verifier, "code_challenge_method": "plain"}))
    .await;
    assert_eq!((sent.status, &sent.body), (200, &json!({})));
    let link = next_mail(&mut mails).await.link();
    assert!(link_token(&link).starts_with("pkce_"), "{link}");
    let location = follow(&link, &format!("{reset_page}?code=")).await;
    let s = exchange(&d, &query(&location)["code"], &verifier).await;
    assert_eq!(s.status, 200, "{}", s.body);
    reset_password(&d, access(&s.body), &old).await;

    // GoTrue token.go: a code past its flow state's lifetime is 422 flow_state_expired,
    // and it is gone after that.
    let (verifier, challenge) = pkce_pair("late");
    recover(json!({"email": "ada@example.com",
        "code_challenge": challenge, "code_challenge_method": "S256"}))
    .await;
    let (_, location) = open_link(&next_mail(&mut mails).await.link()).await;
    let code = query(&location)["code"].clone();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        exchange(&d, &code, &verifier).await.error(422),
        "flow_state_expired"
    );
    assert_eq!(
        exchange(&d, &code, &verifier).await.error(404),
        "flow_state_not_found"
    );

    // GoTrue's checks of the PKCE fields, each 400 validation_failed.
    for body in [
        json!({"email": "ada@example.com", "code_challenge": challenge}),
        json!({"email": "ada@example.com", "code_challenge_method": "s256"}),
        json!({"email": "ada@example.com", "code_challenge": "short", "code_challenge_method": "s256"}),
        json!({"email": "ada@example.com", "code_challenge": challenge, "code_challenge_method": "md5"}),
    ] {
        assert_eq!(recover(body).await.error(400), "validation_failed");
    }
    assert_eq!(
        exchange(&d, "", &verifier).await.error(400),
        "validation_failed",
        "both auth code and code verifier are required"
    );

    // Without PKCE fields the implicit flow is unchanged: a plain token, the session in
    // the fragment.
    recover(json!({"email": "ada@example.com"})).await;
    let link = next_mail(&mut mails).await.link();
    assert!(!link_token(&link).starts_with("pkce_"), "{link}");
    let (_, location) = open_link(&link).await;
    assert!(
        location.starts_with(&format!("{reset_page}#access_token=")),
        "{location}"
    );
}

/// GoTrue tokens/service.go (`AccessTokenClaims`): an access token carries the user's
/// `phone`, `app_metadata` and `user_metadata` as they were when it was issued, so apps
/// read them from the session without asking `GET /user`.
#[tokio::test]
async fn access_tokens_carry_phone_app_metadata_and_user_metadata_claims() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    d.sign_up("ada@example.com", PASSWORD).await;
    let up = sign_in(&d, "ada@example.com", PASSWORD).await;
    assert_eq!(up.status, 200, "{}", up.body);
    let claims = jwt_payload(access(&up.body));
    assert_eq!(claims["phone"], "");
    assert_eq!(
        claims["app_metadata"],
        json!({"provider": "email", "providers": ["email"]})
    );
    assert_eq!(claims["user_metadata"], up.body["user"]["user_metadata"]);
    assert!(
        claims["user_metadata"]["subscription"].is_object(),
        "{claims}"
    );

    // A change shows in the next token issued: the one a refresh answers.
    let put = auth(
        &d,
        "PUT",
        "/user",
        Some(access(&up.body)),
        Some(json!({"data": {"name": "Ada Lovelace"}})),
    )
    .await;
    assert_eq!(put.status, 200, "{}", put.body);
    let r = refresh(&d, refresh_token(&up.body)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let claims = jwt_payload(access(&r.body));
    assert_eq!(claims["user_metadata"]["name"], "Ada Lovelace");
    assert_eq!(claims["user_metadata"], put.body["user_metadata"]);
}

/// The mails kept in the outbox (newest first), read with the admin command.
pub(crate) fn outbox(d: &Daemon) -> Vec<Value> {
    let out = crate::util::radar(&d.data)
        .args(["outbox", "list", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// GoTrue mail.go (`SMTP_MAX_FREQUENCY`): one mailed link of a kind per address per
/// interval; inside it, 429 `over_email_send_rate_limit` "For security purposes, you can
/// only request this after N seconds.". Radar answers an unknown address the same way,
/// so the limit does not tell registered addresses apart.
#[tokio::test]
async fn mailed_links_wait_the_send_interval_per_address_and_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--confirm-email", "--email-max-frequency", "2"],
        &[],
    );
    let post = |path: &'static str, body: Value| {
        let d = &d;
        async move { auth(d, "POST", path, None, Some(body)).await }
    };
    let too_soon = |r: &Reply| {
        assert_eq!(r.error(429), "over_email_send_rate_limit", "{}", r.body);
        let msg = r.body["msg"].as_str().unwrap();
        let secs = msg
            .strip_prefix("For security purposes, you can only request this after ")
            .and_then(|m| m.strip_suffix(" seconds."))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("GoTrue's message: {msg}"));
        assert!((1..=2).contains(&secs), "{msg}");
        assert_eq!(r.headers["retry-after"], secs.to_string().as_str());
    };
    let ada = json!({"email": "ada@example.com"});

    // Sign-up mails the confirmation; asking for it again at once is too soon.
    let up = post(
        "/signup",
        json!({"email": "ada@example.com", "password": PASSWORD}),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.body);
    let resend = post(
        "/resend",
        json!({"type": "signup", "email": "ada@example.com"}),
    )
    .await;
    too_soon(&resend);

    // A password reset is another kind, with its own clock.
    assert_eq!(post("/recover", ada.clone()).await.status, 200);
    too_soon(&post("/recover", ada.clone()).await);
    // An unknown address answers exactly as a registered one.
    let nobody = json!({"email": "nobody@example.com"});
    assert_eq!(post("/recover", nobody.clone()).await.status, 200);
    too_soon(&post("/recover", nobody).await);

    let to_ada = |mails: &[Value]| {
        mails
            .iter()
            .filter(|m| m["to"] == "ada@example.com")
            .count()
    };
    let mails = outbox(&d);
    assert_eq!(
        to_ada(&mails),
        2,
        "a refused request mails nothing: {mails:?}"
    );
    assert_eq!(mails.len(), 2, "nothing is mailed to an unknown address");

    // After the interval, a new link goes out.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(post("/recover", ada).await.status, 200);
    let mails = outbox(&d);
    assert_eq!(to_ada(&mails), 3, "{mails:?}");
    assert_eq!(mails[0]["kind"], "recovery");
}

/// GoTrue signup.go (`DISABLE_SIGNUP`): with sign-ups closed, `POST /signup` is 422
/// `signup_disabled` "Signups not allowed for this instance", before anything else is
/// looked at, and `/settings` says `disable_signup: true`. Accounts that exist, and those
/// the operator adds, sign in as before.
#[tokio::test]
async fn disable_signup_closes_sign_ups_but_not_sign_ins() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo"],
        &[("RADAR_DISABLE_SIGNUP", "true")],
    );
    let settings = auth(&d, "GET", "/settings", None, None).await;
    assert_eq!(settings.body["disable_signup"], true, "{}", settings.body);
    for body in [
        json!({"email": "ada@example.com", "password": PASSWORD}),
        json!({"email": "not-an-email", "password": "1"}),
    ] {
        let up = auth(&d, "POST", "/signup", None, Some(body)).await;
        assert_eq!(up.error(422), "signup_disabled");
        assert_eq!(up.body["msg"], "Signups not allowed for this instance");
    }

    let mut create = crate::util::radar(&d.data)
        .args(["users", "create", "ada@example.com", "--password-stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = create.stdin.take().unwrap();
        stdin.write_all(PASSWORD.as_bytes()).unwrap();
    }
    let out = create.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(sign_in(&d, "ada@example.com", PASSWORD).await.status, 200);

    // Open by default.
    let open = Daemon::start(&dir.path().join("open"));
    let settings = auth(&open, "GET", "/settings", None, None).await;
    assert_eq!(settings.body["disable_signup"], false);
}

/// GoTrue signup.go with confirmations on: signing up again with a registered address
/// answers as a fresh sign-up does (`sanitizeUser`: another id, unconfirmed, no session),
/// mails the confirmation again while the account is unconfirmed and nothing once it is
/// confirmed; the account itself is untouched.
#[tokio::test]
async fn sign_up_with_confirmation_does_not_reveal_registered_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--confirm-email"]).await;
    let sign_up = |password: &'static str| {
        let d = &d;
        let body =
            json!({"email": "ada@example.com", "password": password, "data": {"name": "Ada"}});
        async move { auth(d, "POST", "/signup", None, Some(body)).await }
    };
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let first = sign_up(PASSWORD).await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(
        first.body["confirmation_sent_at"].is_string(),
        "{}",
        first.body
    );
    let first_link = next_mail(&mut mails).await.link();

    // Unconfirmed: the same kind of answer, and the confirmation again (a new link).
    let again = sign_up("another password").await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(keys(&again.body), keys(&first.body));
    assert!(again.body.get("access_token").is_none(), "{}", again.body);
    assert_ne!(again.body["id"], first.body["id"]);
    assert_eq!(again.body["email"], "ada@example.com");
    assert_eq!(again.body["email_confirmed_at"], Value::Null);
    assert_eq!(again.body["user_metadata"]["name"], "Ada");
    let mail = next_mail(&mut mails).await;
    assert_eq!(mail.to, "ada@example.com");
    let link = mail.link();
    assert_ne!(link, first_link);
    let location = follow(&link, &d.base).await;
    assert_eq!(fragment(&location)["type"], "signup", "{location}");

    // Confirmed: the same answer again, and no mail.
    let confirmed = sign_up("a third password").await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.body);
    assert_eq!(keys(&confirmed.body), keys(&first.body));
    assert_eq!(confirmed.body["email_confirmed_at"], Value::Null);
    assert_ne!(confirmed.body["id"], first.body["id"]);
    let to_ada = outbox(&d)
        .iter()
        .filter(|m| m["to"] == "ada@example.com")
        .count();
    assert_eq!(to_ada, 2, "no mail for a confirmed address");

    // The account kept its password and id.
    let s = sign_in(&d, "ada@example.com", PASSWORD).await;
    assert_eq!(s.status, 200, "{}", s.body);
    assert_eq!(s.body["user"]["id"], first.body["id"]);
    assert_eq!(
        sign_in(&d, "ada@example.com", "another password")
            .await
            .status,
        400
    );
}

/// GoTrue's `requireAuthentication` loads the user of the token's `sub` before its
/// session: a token of a deleted account is 403 `user_not_found`.
#[tokio::test]
async fn a_deleted_accounts_token_is_user_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let token = d.sign_up("ada@example.com", PASSWORD).await;
    assert_eq!(
        auth(&d, "GET", "/user", Some(&token), None).await.status,
        200
    );
    let out = crate::util::radar(&d.data)
        .args(["users", "delete", "ada@example.com"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let me = auth(&d, "GET", "/user", Some(&token), None).await;
    assert_eq!(me.error(403), "user_not_found");
    assert_eq!(api_status(&d, &token).await, 401);
}

/// GoTrue's answers for features an install has switched off (signup.go's anonymous and
/// phone checks, token.go's web3 grant and phone logins, otp.go, mfa.go's enroll,
/// identity.go's manual linking, sso.go's SAML), so clients show their usual "not available" message instead of
/// "no such endpoint".
#[tokio::test]
async fn features_radar_lacks_answer_gotrues_disabled_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let post = |path: &'static str, bearer: Option<String>, body: Value| {
        let d = &d;
        async move { auth(d, "POST", path, bearer.as_deref(), Some(body)).await }
    };
    let expect = |r: Reply, status: u16, code: &str, msg: &str| {
        assert_eq!(r.error(status), code);
        assert_eq!(r.body["msg"], msg);
    };

    // auth-js signInAnonymously() posts /signup with neither e-mail nor phone.
    let anonymous = post("/signup", None, json!({"data": {}})).await;
    expect(
        anonymous,
        422,
        "anonymous_provider_disabled",
        "Anonymous sign-ins are disabled",
    );
    let phone = post(
        "/signup",
        None,
        json!({"phone": "+15555550100", "password": PASSWORD}),
    )
    .await;
    expect(
        phone,
        400,
        "phone_provider_disabled",
        "Phone signups are disabled",
    );
    let web3 = grant(&d, "web3", json!({"chain": "solana"})).await;
    expect(
        web3,
        422,
        "web3_provider_disabled",
        "Web3 provider is disabled",
    );
    let sso = post("/sso", None, json!({"domain": "example.com"})).await;
    expect(sso, 404, "saml_provider_disabled", "SAML 2.0 is disabled");

    // otp.go: signInWithOtp() by phone is GoTrue's phones-off answer; by e-mail Radar's
    // one-time sign-ins are off; both or neither is a validation error. token.go: a
    // password grant with a phone is refused as phone logins, 422.
    let by_phone = post("/otp", None, json!({"phone": "+15555550100"})).await;
    expect(
        by_phone,
        400,
        "phone_provider_disabled",
        "Unsupported phone provider",
    );
    let by_email = post(
        "/otp",
        None,
        json!({"email": "ada@example.com", "create_user": true}),
    )
    .await;
    assert_eq!(by_email.error(422), "otp_disabled");
    let both = post(
        "/otp",
        None,
        json!({"email": "ada@example.com", "phone": "+15555550100"}),
    )
    .await;
    assert_eq!(both.error(400), "validation_failed");
    assert_eq!(
        post("/otp", None, json!({})).await.error(400),
        "validation_failed"
    );
    let phone_login = grant(
        &d,
        "password",
        json!({"phone": "+15555550100", "password": PASSWORD}),
    )
    .await;
    expect(
        phone_login,
        422,
        "phone_provider_disabled",
        "Phone logins are disabled",
    );

    // MFA and identity linking want a signed-in caller first.
    let totp = json!({"factor_type": "totp"});
    assert_eq!(
        post("/factors", None, totp.clone()).await.error(401),
        "no_authorization"
    );
    let token = d.sign_up("ada@example.com", PASSWORD).await;
    let enroll = post("/factors", Some(token.clone()), totp).await;
    expect(
        enroll,
        422,
        "mfa_totp_enroll_not_enabled",
        "MFA enroll is disabled for TOTP",
    );
    let phone_factor = post(
        "/factors",
        Some(token.clone()),
        json!({"factor_type": "phone"}),
    )
    .await;
    assert_eq!(phone_factor.error(422), "mfa_phone_enroll_not_enabled");
    let odd = post(
        "/factors",
        Some(token.clone()),
        json!({"factor_type": "sms"}),
    )
    .await;
    assert_eq!(odd.error(400), "validation_failed");
    let path = "/user/identities/authorize?provider=google";
    assert_eq!(
        auth(&d, "GET", path, None, None).await.error(401),
        "no_authorization"
    );
    let link = auth(&d, "GET", path, Some(&token), None).await;
    expect(
        link,
        404,
        "manual_linking_disabled",
        "Manual linking is disabled",
    );
}

/// GoTrue token_refresh.go: within the reuse interval, a spent token that is not the
/// parent of the active one (a client two rotations behind) gets a new token of the same
/// session rather than ending it, and both branches then work.
#[tokio::test]
async fn within_the_reuse_interval_an_older_spent_token_gets_a_new_token_of_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--refresh-reuse-interval", "30"],
        &[],
    );
    d.sign_up("ada@example.com", PASSWORD).await;
    let s0 = sign_in(&d, "ada@example.com", PASSWORD).await.body;
    let s1 = refresh(&d, refresh_token(&s0)).await.body;
    let s2 = refresh(&d, refresh_token(&s1)).await.body;

    let behind = refresh(&d, refresh_token(&s0)).await;
    assert_eq!(behind.status, 200, "{}", behind.body);
    let c = refresh_token(&behind.body);
    assert!(
        [&s0, &s1, &s2].iter().all(|s| refresh_token(s) != c),
        "a new token, not one of the chain"
    );
    assert_eq!(
        jwt_payload(access(&behind.body))["session_id"],
        jwt_payload(access(&s0))["session_id"],
        "of the same session"
    );
    assert_eq!(refresh(&d, refresh_token(&s2)).await.status, 200);
    assert_eq!(refresh(&d, c).await.status, 200);
    assert_eq!(api_status(&d, access(&behind.body)).await, 200);
}

/// GoTrue signup.go with confirmations on: signing up again with an unconfirmed address
/// re-sends its confirmation, so within the send interval (60 s by default) it is 429
/// `over_email_send_rate_limit`, as a `/resend` would be.
#[tokio::test]
async fn signing_up_again_unconfirmed_within_the_send_interval_is_too_soon() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(
        &dir.path().join("data"),
        &["--no-demo", "--confirm-email"],
        &[],
    );
    let up = || {
        let d = &d;
        let body = json!({"email": "ada@example.com", "password": PASSWORD});
        async move { auth(d, "POST", "/signup", None, Some(body)).await }
    };
    let first = up().await;
    assert_eq!(first.status, 200, "{}", first.body);
    let again = up().await;
    assert_eq!(again.error(429), "over_email_send_rate_limit");
    let wait: u64 = again.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((50..=60).contains(&wait), "about a minute: {wait}");
    let to_ada = outbox(&d)
        .iter()
        .filter(|m| m["to"] == "ada@example.com")
        .count();
    assert_eq!(to_ada, 1, "the refused sign-up mailed nothing");
}

/// GoTrue resend.go: a `/resend` carrying `code_challenge` mails a `pkce_` confirmation
/// link, which lands with `?code=` for the verifier to exchange.
#[tokio::test]
async fn a_resent_confirmation_can_start_a_pkce_flow() {
    let dir = tempfile::tempdir().unwrap();
    let (d, mut mails) = mailing_daemon(dir.path(), &["--confirm-email"]).await;
    let up = auth(
        &d,
        "POST",
        "/signup",
        None,
        Some(json!({"email": "ada@example.com", "password": PASSWORD})),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.body);
    let implicit = next_mail(&mut mails).await.link();
    assert!(!link_token(&implicit).starts_with("pkce_"), "{implicit}");

    let (verifier, challenge) = pkce_pair("resend");
    let welcome = d.url("/welcome");
    let sent = auth(
        &d,
        "POST",
        &format!("/resend?redirect_to={welcome}"),
        None,
        Some(json!({"type": "signup", "email": "ada@example.com",
            "code_challenge": challenge, "code_challenge_method": "s256"})),
    )
    .await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    let link = next_mail(&mut mails).await.link();
    assert!(link_token(&link).starts_with("pkce_"), "{link}");
    let location = follow(&link, &format!("{welcome}?code=")).await;
    let s = exchange(&d, &query(&location)["code"], &verifier).await;
    assert_eq!(s.status, 200, "{}", s.body);
    assert!(
        s.body["user"]["email_confirmed_at"].is_string(),
        "the link confirmed the address: {}",
        s.body
    );
}
