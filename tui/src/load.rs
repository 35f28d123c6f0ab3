//! The state of anything fetched from the server.

/// Data that comes from the server: not asked for yet, on its way, there, or failed.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Load<T> {
    /// Not requested (for example a signed-in list while signed out).
    #[default]
    Idle,
    /// Requested; nothing to show yet.
    Loading,
    /// Here. A reload keeps showing this until the answer comes.
    Loaded(T),
    /// The request failed with this message.
    Failed(String),
}

impl<T> Load<T> {
    /// The data, when loaded.
    pub fn data(&self) -> Option<&T> {
        match self {
            Load::Loaded(t) => Some(t),
            _ => None,
        }
    }

    /// The data, mutably, when loaded.
    pub fn data_mut(&mut self) -> Option<&mut T> {
        match self {
            Load::Loaded(t) => Some(t),
            _ => None,
        }
    }

    /// Marks a (re)load as started: loaded data stays on screen while it runs.
    pub fn start(&mut self) {
        if !matches!(self, Load::Loaded(_)) {
            *self = Load::Loading;
        }
    }
}
