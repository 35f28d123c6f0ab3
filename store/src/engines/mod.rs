//! The backends: each engine's implementation of [`crate::backend`], in a module of its
//! own so that nothing outside it names the engine.

pub(crate) mod postgres;
