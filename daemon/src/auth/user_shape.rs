//! The user object of the auth protocol (GoTrue's shape), built from a stored account:
//! the wire shape lives here, beside the auth service, not in the store.

use radar_store::{Store, User};

/// The user object of the auth protocol, with Radar's subscription fields.
pub(crate) fn auth_user(store: &Store, user: &User) -> radar_api::auth::AuthUser {
    let mut meta = user.user_metadata.clone();
    // The same subscription object as `GET /api/user/metadata`, so clients agree.
    meta.insert(
        "subscription".into(),
        serde_json::json!(store.subscription_status(user)),
    );
    meta.entry("avatar_url").or_insert(serde_json::Value::Null);
    let identity = radar_api::auth::AuthIdentity {
        identity_id: user.id.clone(),
        id: user.id.clone(),
        user_id: user.id.clone(),
        identity_data: serde_json::json!({
            "email": user.email,
            "email_verified": user.email_confirmed_at.is_some(),
            "phone_verified": false,
            "sub": user.id,
        }),
        provider: "email".into(),
        email: Some(user.email.clone()),
        last_sign_in_at: user.last_sign_in_at,
        created_at: user.created_at,
        updated_at: user.updated_at,
    };
    radar_api::auth::AuthUser {
        id: user.id.clone(),
        aud: "authenticated".into(),
        role: "authenticated".into(),
        email: user.email.clone(),
        phone: String::new(),
        email_confirmed_at: user.email_confirmed_at,
        confirmed_at: user.email_confirmed_at,
        last_sign_in_at: user.last_sign_in_at,
        confirmation_sent_at: user.confirmation_sent_at,
        recovery_sent_at: user.recovery_sent_at,
        new_email: user.new_email.clone(),
        email_change_sent_at: user.email_change_sent_at,
        reauthentication_sent_at: user.reauthentication_sent_at,
        app_metadata: radar_api::auth::AuthAppMetadata {
            provider: "email".into(),
            providers: vec!["email".into()],
        },
        user_metadata: meta,
        identities: vec![identity],
        created_at: user.created_at,
        updated_at: user.updated_at,
        is_anonymous: false,
        has_active_subscription: store.is_subscriber(user),
    }
}
