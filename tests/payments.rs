//! Payments (issue 4): the test provider from checkout session to active subscription,
//! and the Stripe provider against a local stub of Stripe's Checkout Sessions API
//! (nothing leaves 127.0.0.1), with its signed webhook.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::util::{Daemon, answer, assert_error};
use radar_store::{FREE_LIMIT, SUBSCRIBER_PAGE};

/// A browser-like client that does not follow redirects.
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The auth service's user object for a token.
async fn auth_user(d: &Daemon, token: &str) -> Value {
    let res = d
        .http
        .get(d.url("/auth/v1/user"))
        .bearer_auth(token)
        .header("apikey", &d.anon_key)
        .send()
        .await
        .unwrap();
    let (status, body) = answer(res).await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn verify(d: &Daemon, token: &str, session: &str) -> Value {
    let (status, body) = d
        .call(
            "POST",
            "/api/verify-subscription",
            Some(token),
            Some(json!({"sessionId": session})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn test_checkout_from_session_to_active_subscription() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start_with(&dir.path().join("data"), &["--no-demo"], &[]);
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    let bob = d.sign_up("bob@example.com", "secret-password").await;
    assert_eq!(d.get("/api/news", Some(&ann)).await.1["limit"], FREE_LIMIT);

    let (status, created) = d
        .call("POST", "/api/create-checkout-session", Some(&ann), None)
        .await;
    assert_eq!(status, 200, "{created}");
    let url = created["url"].as_str().unwrap().to_string();
    assert!(
        url.starts_with(&format!("{}/checkout/cs_test_", d.base)),
        "{url}"
    );
    let session = url.rsplit('/').next().unwrap().to_string();

    // The checkout page is the daemon's own, with a Pay form posting back to it.
    let page = d.http.get(&url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    assert!(
        html.contains(&format!("action=\"/checkout/{session}\""))
            && html.contains("method=\"post\""),
        "{html}"
    );
    assert_eq!(
        d.http
            .get(d.url("/checkout/cs_test_unknown"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );

    // Not paid yet: verification fails with a message and activates nothing.
    let early = verify(&d, &ann, &session).await;
    assert_eq!(early["success"], false);
    assert!(
        early["message"].as_str().unwrap().contains("not been paid"),
        "{early}"
    );
    assert_eq!(
        d.get("/api/user/metadata", Some(&ann)).await.1["subscription"]["isActive"],
        false
    );

    // Pay: 303 to the success page with the session id.
    let paid = no_redirects().post(&url).send().await.unwrap();
    assert_eq!(paid.status(), 303);
    assert_eq!(
        paid.headers()["location"],
        format!("/subscribe/success?session_id={session}").as_str()
    );

    // Another user's session, an unknown one, a bad body.
    let stolen = verify(&d, &bob, &session).await;
    assert_eq!(stolen["success"], false);
    assert!(
        stolen["message"].as_str().unwrap().contains("not found"),
        "{stolen}"
    );
    assert_eq!(verify(&d, &ann, "cs_test_nope").await["success"], false);
    for bad in [
        json!({"sessionId": ""}),
        json!({}),
        json!({"sessionId": 7}),
        json!([session]),
    ] {
        let got = d
            .call(
                "POST",
                "/api/verify-subscription",
                Some(&ann),
                Some(bad.clone()),
            )
            .await;
        assert_eq!(assert_error(&got, 400), "invalid_body", "{bad}");
    }
    assert_eq!(
        d.get("/api/user/metadata", Some(&bob)).await.1["subscription"]["isActive"],
        false
    );

    let ok = verify(&d, &ann, &session).await;
    assert_eq!(ok["success"], true, "{ok}");
    assert!(ok["message"].as_str().is_some_and(|m| !m.is_empty()));
    let meta = d.get("/api/user/metadata", Some(&ann)).await.1;
    assert_eq!(meta["subscription"]["isActive"], true);
    assert!(
        meta["subscription"]["customerId"]
            .as_str()
            .unwrap()
            .starts_with("cus_test_"),
        "{meta}"
    );
    // The auth user object agrees.
    let user = auth_user(&d, &ann).await;
    assert_eq!(user["has_active_subscription"], true);
    assert_eq!(user["user_metadata"]["subscription"], meta["subscription"]);
    assert_eq!(auth_user(&d, &bob).await["has_active_subscription"], false);
    // The caps follow: a subscriber reads pages of SUBSCRIBER_PAGE.
    assert_eq!(
        d.get("/api/news", Some(&ann)).await.1["limit"],
        SUBSCRIBER_PAGE
    );
    assert_eq!(
        verify(&d, &ann, &session).await["success"],
        true,
        "verifying again is harmless"
    );
    let again = d
        .call("POST", "/api/create-checkout-session", Some(&ann), None)
        .await;
    assert_eq!(assert_error(&again, 409), "already_subscribed");
    // Subscriptions being closed (the default) leaves the test checkout available.
    assert_eq!(
        d.call("POST", "/api/create-checkout-session", Some(&bob), None)
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn checkouts_per_account_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let d = Daemon::start(&dir.path().join("data"));
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    for n in 1..=20 {
        assert_eq!(
            d.call("POST", "/api/create-checkout-session", Some(&ann), None)
                .await
                .0,
            200,
            "checkout {n}"
        );
    }
    let refused = d
        .call("POST", "/api/create-checkout-session", Some(&ann), None)
        .await;
    assert_eq!(assert_error(&refused, 429), "too_many_checkouts");
    let bob = d.sign_up("bob@example.com", "secret-password").await;
    assert_eq!(
        d.call("POST", "/api/create-checkout-session", Some(&bob), None)
            .await
            .0,
        200,
        "counted per account"
    );
}

/// What the Stripe stub remembers.
#[derive(Default)]
struct Stub {
    sessions: HashMap<String, Value>,
    forms: Vec<Vec<(String, String)>>,
}

type Shared = Arc<Mutex<Stub>>;

const SECRET_KEY: &str = "sk_test_radar";
const WEBHOOK_SECRET: &str = "whsec_radar_test";

fn stub_authorized(headers: &HeaderMap) -> bool {
    headers
        .get("authorization")
        .is_some_and(|h| h == format!("Bearer {SECRET_KEY}").as_str())
}

async fn stub_create(
    State(s): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<Vec<(String, String)>>,
) -> (StatusCode, Json<Value>) {
    if !stub_authorized(&headers) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": {"type": "invalid_request_error", "message": "Invalid API Key"}})),
        );
    }
    let mut stub = s.lock().unwrap();
    let id = format!("cs_stub_{}", stub.sessions.len() + 1);
    let field = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let session = json!({
        "id": id,
        "object": "checkout.session",
        "url": format!("https://checkout.stripe.test/c/pay/{id}"),
        "mode": field("mode"),
        "status": "open",
        "payment_status": "unpaid",
        "customer": null,
        "client_reference_id": field("client_reference_id"),
        "success_url": field("success_url"),
    });
    stub.sessions.insert(id, session.clone());
    stub.forms.push(form);
    (StatusCode::OK, Json(session))
}

async fn stub_retrieve(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> (StatusCode, Json<Value>) {
    if !stub_authorized(&headers) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": {"message": "Invalid API Key"}})),
        );
    }
    match s.lock().unwrap().sessions.get(&id) {
        Some(v) => (StatusCode::OK, Json(v.clone())),
        None => (
            StatusCode::NOT_FOUND,
            Json(
                json!({"error": {"type": "invalid_request_error", "message": "No such checkout.session"}}),
            ),
        ),
    }
}

/// Starts the stub on a free port of 127.0.0.1; answers its base URL.
async fn start_stub(state: Shared) -> String {
    let app = Router::new()
        .route("/v1/checkout/sessions", post(stub_create))
        .route("/v1/checkout/sessions/{id}", get(stub_retrieve))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn complete(stub: &Shared, id: &str, customer: &str) -> Value {
    let mut s = stub.lock().unwrap();
    let session = s.sessions.get_mut(id).unwrap();
    session["status"] = json!("complete");
    session["payment_status"] = json!("paid");
    session["customer"] = json!(customer);
    session.clone()
}

fn stripe_daemon(data: &std::path::Path, base: &str, open: bool) -> Daemon {
    let mut args = vec![
        "--no-demo",
        "--payments-provider",
        "stripe",
        "--stripe-price-id",
        "price_premium",
        "--stripe-api-base",
        base,
    ];
    if open {
        args.push("--subscriptions-open");
    }
    Daemon::start_with(
        data,
        &args,
        &[
            ("RADAR_STRIPE_SECRET_KEY", SECRET_KEY),
            ("RADAR_STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ],
    )
}

#[tokio::test]
async fn stripe_checkout_against_a_local_stub() {
    let stub = Shared::default();
    let base = start_stub(stub.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let d = stripe_daemon(&dir.path().join("data"), &base, true);
    assert_eq!(
        d.get("/api/config", None).await.1["paymentsProvider"],
        "stripe"
    );
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    let bob = d.sign_up("bob@example.com", "secret-password").await;
    let ann_id = auth_user(&d, &ann).await["id"]
        .as_str()
        .unwrap()
        .to_string();

    let (status, created) = d
        .call("POST", "/api/create-checkout-session", Some(&ann), None)
        .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(
        created["url"],
        "https://checkout.stripe.test/c/pay/cs_stub_1"
    );
    {
        let s = stub.lock().unwrap();
        let form: HashMap<_, _> = s.forms[0].iter().cloned().collect();
        assert_eq!(form["mode"], "subscription");
        assert_eq!(form["line_items[0][price]"], "price_premium");
        assert_eq!(form["line_items[0][quantity]"], "1");
        assert_eq!(form["customer_email"], "ann@example.com");
        assert!(
            form["success_url"].ends_with("/subscribe/success?session_id={CHECKOUT_SESSION_ID}"),
            "{}",
            form["success_url"]
        );
        assert_eq!(form["client_reference_id"], ann_id);
    }

    let unpaid = verify(&d, &ann, "cs_stub_1").await;
    assert_eq!(unpaid["success"], false);
    assert!(
        unpaid["message"]
            .as_str()
            .unwrap()
            .contains("not been paid")
    );
    complete(&stub, "cs_stub_1", "cus_stub_ann");
    assert_eq!(
        verify(&d, &bob, "cs_stub_1").await["success"],
        false,
        "another user's session"
    );
    let ok = verify(&d, &ann, "cs_stub_1").await;
    assert_eq!(ok["success"], true, "{ok}");
    assert_eq!(
        d.get("/api/user/metadata", Some(&ann)).await.1,
        json!({"subscription": {"isActive": true, "customerId": "cus_stub_ann"}})
    );
}

#[tokio::test]
async fn stripe_checkout_is_refused_while_subscriptions_are_closed() {
    let stub = Shared::default();
    let base = start_stub(stub.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let d = stripe_daemon(&dir.path().join("data"), &base, false);
    assert_eq!(
        d.get("/api/config", None).await.1["subscriptionsOpen"],
        false
    );
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    let got = d
        .call("POST", "/api/create-checkout-session", Some(&ann), None)
        .await;
    assert_eq!(assert_error(&got, 403), "subscriptions_closed");
    assert!(
        stub.lock().unwrap().forms.is_empty(),
        "nothing reached Stripe"
    );
}

#[tokio::test]
async fn stripe_provider_needs_its_settings_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::util::radar(&dir.path().join("data"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--no-demo",
            "--payments-provider",
            "stripe",
        ])
        .env_remove("RADAR_STRIPE_SECRET_KEY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stripe-secret-key"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn signature(t: i64, body: &str, secret: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}

async fn webhook(d: &Daemon, signature: Option<&str>, body: &str) -> (u16, Value) {
    let mut req = d
        .http
        .post(d.url("/api/stripe/webhook"))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(s) = signature {
        req = req.header("Stripe-Signature", s);
    }
    answer(req.send().await.unwrap()).await
}

#[tokio::test]
async fn stripe_webhook_activates_only_with_a_valid_signature() {
    let stub = Shared::default();
    let base = start_stub(stub.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let d = stripe_daemon(&dir.path().join("data"), &base, true);
    let ann = d.sign_up("ann@example.com", "secret-password").await;
    assert_eq!(
        d.call("POST", "/api/create-checkout-session", Some(&ann), None)
            .await
            .0,
        200
    );
    let session = complete(&stub, "cs_stub_1", "cus_hook");
    let event =
        json!({"id": "evt_1", "type": "checkout.session.completed", "data": {"object": session}})
            .to_string();
    let now = chrono::Utc::now().timestamp();

    for bad in [
        None,
        Some("garbage".to_string()),
        Some(signature(now, &event, "whsec_wrong")),
        Some(signature(now - 3600, &event, WEBHOOK_SECRET)),
        Some(signature(
            now,
            &event.replace("cus_hook", "cus_evil"),
            WEBHOOK_SECRET,
        )),
    ] {
        let got = webhook(&d, bad.as_deref(), &event).await;
        assert_eq!(assert_error(&got, 400), "invalid_signature", "{bad:?}");
    }
    assert_eq!(
        d.get("/api/user/metadata", Some(&ann)).await.1["subscription"]["isActive"],
        false,
        "a bad signature changes nothing"
    );

    let got = webhook(&d, Some(&signature(now, &event, WEBHOOK_SECRET)), &event).await;
    assert_eq!(got, (200, json!({"received": true})));
    assert_eq!(
        d.get("/api/user/metadata", Some(&ann)).await.1,
        json!({"subscription": {"isActive": true, "customerId": "cus_hook"}})
    );
    // Other event types are acknowledged and ignored.
    let other = json!({"id": "evt_2", "type": "invoice.paid", "data": {"object": {}}}).to_string();
    assert_eq!(
        webhook(&d, Some(&signature(now, &other, WEBHOOK_SECRET)), &other)
            .await
            .0,
        200
    );
    assert_eq!(
        d.get("/api/user/metadata", Some(&ann)).await.1["subscription"]["isActive"],
        true
    );

    // Stripe cancelling the subscription ends it here too.
    let deleted = json!({"id": "evt_3", "type": "customer.subscription.deleted",
        "data": {"object": {"id": "sub_1", "object": "subscription", "customer": "cus_hook", "status": "canceled"}}})
    .to_string();
    assert_eq!(
        webhook(
            &d,
            Some(&signature(now, &deleted, WEBHOOK_SECRET)),
            &deleted
        )
        .await
        .0,
        200
    );
    assert_eq!(
        d.get("/api/user/metadata", Some(&ann)).await.1,
        json!({"subscription": {"isActive": false, "customerId": null}})
    );
    assert_eq!(
        d.get("/api/news", Some(&ann)).await.1["limit"],
        FREE_LIMIT,
        "back to the free cap"
    );
}
