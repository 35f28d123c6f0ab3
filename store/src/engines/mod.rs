//! The backends: each engine's implementation of [`crate::backend`], in a module of its
//! own so that nothing outside it names the engine.

#[cfg(test)]
pub(crate) mod memory;
pub(crate) mod postgres;
