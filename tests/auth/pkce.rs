//! PKCE for mailed links: codes exchanged once with the verifier, their expiry, a resent confirmation.

use super::*;

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
