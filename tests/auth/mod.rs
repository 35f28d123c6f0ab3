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
        bits = (bits << 6) | u32::try_from(alphabet.iter().position(|a| *a == c).unwrap()).unwrap();
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push(u8::try_from((bits >> n) & 0xff).unwrap());
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
    /// The header lines, as sent.
    pub(crate) headers: String,
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
                            let headers = raw
                                .iter()
                                .take_while(|l| !l.is_empty())
                                .cloned()
                                .collect::<Vec<_>>()
                                .join("\n");
                            let _ = tx.send(Received {
                                to: to.clone(),
                                headers,
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
    let blank = lines
        .iter()
        .position(std::string::String::is_empty)
        .unwrap_or(0);
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

/// Sessions and tokens: sign-up and sign-in, refresh-token rotation and reuse, logout scopes, the signing secret, claims.
mod sessions;

/// Mailed links: recovery and confirmation mails, the outbox of a local install, the send interval, what a sign-up reveals.
mod mailed_links;

/// The sign-in limiter: per address and client IP, its refill, and the client IP behind a proxy.
mod limits;

/// PKCE for mailed links: codes exchanged once with the verifier, their expiry, a resent confirmation.
mod pkce;

/// The protocol around the flows: settings, CORS, unknown endpoints, closed sign-ups, the features Radar answers as disabled.
mod protocol;
