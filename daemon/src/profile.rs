//! The signed-in user's profile (docs/product.md §2 and §7): the professional resume, and
//! the reading settings web and terminal share (mark-on-open).
//!
//! A resume longer than `radar_store::MAX_RESUME_CHARS` (20,000 characters) is refused
//! with 413 `resume_too_long`; the request body itself is bounded by axum's default
//! 2 MB body limit before it is parsed.

use axum::extract::State;
use axum::http::StatusCode;
use radar_api::account::{ProfileBody, ProfileChange};
use radar_store::{MAX_RESUME_CHARS, Profile};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::error::{ApiError, Result};
use crate::extract::{AuthUser, Json};
use crate::state::AppState;

/// The profile routes.
pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_profile, patch_profile))
}

/// The caller's profile; empty until they save one.
#[utoipa::path(get, path = "/api/user/profile", tag = "profile", responses(
    (status = 200, body = ProfileBody), (status = 401, body = crate::error::ErrorBody)))]
pub(crate) async fn get_profile(
    State(s): State<AppState>,
    caller: AuthUser,
) -> Result<Json<ProfileBody>> {
    Ok(body_of(s.store.profile(&caller.user.id).await?))
}

fn body_of(profile: Profile) -> Json<ProfileBody> {
    Json(ProfileBody {
        resume: profile.resume,
        mark_on_open: profile.mark_on_open,
        weekly_email: profile.weekly_email,
        stories: profile.stories,
    })
}

/// Saves the caller's resume (at most 20,000 characters), their mark-on-open setting,
/// whether they get each weekly summary by e-mail or whether they read by story, and
/// answers the profile.
#[utoipa::path(patch, path = "/api/user/profile", tag = "profile", request_body = ProfileChange, responses(
    (status = 200, body = ProfileBody),
    (status = 400, body = crate::error::ErrorBody, description = "Not a JSON object with a string resume or a boolean markOnOpen, weeklyEmail or stories"),
    (status = 401, body = crate::error::ErrorBody),
    (status = 413, body = crate::error::ErrorBody, description = "Resume longer than 20,000 characters"),
))]
pub(crate) async fn patch_profile(
    State(s): State<AppState>,
    caller: AuthUser,
    Json(body): Json<serde_json::Value>,
) -> Result<Json<ProfileBody>> {
    // Read as any JSON, not straight into `ProfileChange`: serde would also accept an
    // array for a struct, and a wrong shape should be a 400, not a 422.
    let invalid = || {
        ApiError::bad_request(
            "invalid_body",
            "The body must be a JSON object with a string field \"resume\" or a boolean field \"markOnOpen\", \"weeklyEmail\" or \"stories\".",
        )
    };
    let resume = match body.get("resume") {
        None => None,
        Some(serde_json::Value::String(r)) => Some(r),
        Some(_) => return Err(invalid()),
    };
    let mark_on_open = match body.get("markOnOpen") {
        None => None,
        Some(serde_json::Value::Bool(b)) => Some(*b),
        Some(_) => return Err(invalid()),
    };
    let weekly_email = match body.get("weeklyEmail") {
        None => None,
        Some(serde_json::Value::Bool(b)) => Some(*b),
        Some(_) => return Err(invalid()),
    };
    let stories = match body.get("stories") {
        None => None,
        Some(serde_json::Value::Bool(b)) => Some(*b),
        Some(_) => return Err(invalid()),
    };
    if resume.is_none() && mark_on_open.is_none() && weekly_email.is_none() && stories.is_none() {
        return Err(invalid());
    }
    if let Some(resume) = resume {
        let chars = resume.chars().count();
        if chars > MAX_RESUME_CHARS {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "resume_too_long",
                format!("The resume is {chars} characters long; the limit is {MAX_RESUME_CHARS}."),
            ));
        }
    }
    let mut saved = None;
    if let Some(resume) = resume {
        saved = Some(s.store.set_resume(&caller.user.id, resume).await?);
    }
    if let Some(on) = mark_on_open {
        saved = Some(s.store.set_mark_on_open(&caller.user.id, on).await?);
    }
    if let Some(on) = weekly_email {
        saved = Some(s.store.set_weekly_email(&caller.user.id, on).await?);
    }
    if let Some(on) = stories {
        saved = Some(s.store.set_stories(&caller.user.id, on).await?);
    }
    Ok(body_of(saved.ok_or_else(invalid)?))
}
