//! The sign-in limiter: per address and client IP, its refill, and the client IP behind a proxy.

use super::*;

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
