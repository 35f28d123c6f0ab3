//! The error answer of `/api`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of every error answer under `/api`: `{"error", "message"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// Stable machine-readable code (`not_found`, `subscription_required`...).
    pub error: String,
    /// A sentence for people: what was wrong and what to do.
    pub message: String,
}
