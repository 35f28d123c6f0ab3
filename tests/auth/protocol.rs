//! The protocol around the flows: settings, CORS, unknown endpoints, closed sign-ups, the features Radar answers as disabled.

use super::*;

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
