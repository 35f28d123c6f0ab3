//! Mailed links: recovery and confirmation mails, the outbox of a local install, the send interval, what a sign-up reveals.

use super::*;

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
        headers: String::new(),
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
