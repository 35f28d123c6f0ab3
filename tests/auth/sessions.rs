//! Sessions and tokens: sign-up and sign-in, refresh-token rotation and reuse, logout scopes, the signing secret, claims.

use super::*;

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
    // With the demo items: an ended session's mark writes are tried on one.
    let d = Daemon::start_with(&dir.path().join("data"), &[], &[]);
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
    // The mark writes check the session in the write itself: an ended one changes nothing.
    let (_, feed) = d.get("/api/news", Some(access(&s[1]))).await;
    let first = feed["items"][0]["id"]
        .as_str()
        .expect("an item")
        .to_string();
    for method in ["POST", "DELETE"] {
        for mark in ["favorites", "hidden", "read"] {
            let path = format!("/api/{mark}/{first}");
            let got = d.call(method, &path, Some(access(&s[0])), None).await;
            assert_eq!(
                crate::util::assert_error(&got, 401),
                "unauthorized",
                "{method} {path}"
            );
            assert_eq!(
                got.1["message"],
                "Your session is invalid or has expired. Please sign in again."
            );
            let (_, marked) = d.get(&format!("/api/{mark}"), Some(access(&s[1]))).await;
            assert_eq!(marked, json!([]), "{method} {path} changed nothing");
        }
    }
    let (status, _) = d
        .call(
            "POST",
            &format!("/api/read/{first}"),
            Some(access(&s[1])),
            None,
        )
        .await;
    assert_eq!(status, 200, "a live session of the same account writes");

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
