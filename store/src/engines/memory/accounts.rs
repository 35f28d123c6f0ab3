//! Accounts in memory, with their e-mail and payment customer lookups.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use super::{MemoryBackend, State};
use crate::backend::{AccountStore, UserChange};
use crate::{Error, Result, User};

/// Accounts by id, e-mail and customer id.
#[derive(Default)]
pub(super) struct Accounts {
    users: HashMap<String, Arc<User>>,
    /// E-mail -> user id, in e-mail order for the operators' listing.
    by_email: BTreeMap<String, String>,
    /// Payment customer id -> user id.
    by_customer: HashMap<String, String>,
}

fn customer(user: &User) -> Option<&String> {
    user.subscription.customer_id.as_ref()
}

impl Accounts {
    pub(super) fn get(&self, id: &str) -> Option<&Arc<User>> {
        self.users.get(id)
    }

    /// Refuses `user` when another account has its e-mail.
    fn check_email(&self, user: &User) -> Result<()> {
        match self.by_email.get(&user.email) {
            Some(owner) if *owner != user.id => Err(Error::Conflict(
                "A user with this email address has already been registered".into(),
            )),
            _ => Ok(()),
        }
    }

    /// Stores a record (checked by [`Accounts::check_email`]), moving its lookups from
    /// those of the record it replaces.
    fn write(&mut self, user: User) -> Arc<User> {
        let user = Arc::new(user);
        if let Some(old) = self.users.insert(user.id.clone(), user.clone()) {
            self.unindex(&old);
        }
        self.by_email.insert(user.email.clone(), user.id.clone());
        if let Some(c) = customer(&user) {
            self.by_customer.insert(c.clone(), user.id.clone());
        }
        user
    }

    /// Drops the lookups of a record, each only while it still points at this account.
    fn unindex(&mut self, user: &User) {
        if self.by_email.get(&user.email) == Some(&user.id) {
            self.by_email.remove(&user.email);
        }
        if let Some(c) = customer(user)
            && self.by_customer.get(c) == Some(&user.id)
        {
            self.by_customer.remove(c);
        }
    }

    /// Applies a rule to a copy of an account and stores the copy if the rule and the
    /// e-mail's uniqueness allow; nothing changes otherwise.
    pub(super) fn update(&mut self, id: &str, change: &mut UserChange<'_>) -> Result<Arc<User>> {
        let mut user = User::clone(self.users.get(id).ok_or(Error::NotFound("user"))?);
        change(&mut user)?;
        if user.id != id {
            return Err(Error::Invalid(
                "a change of an account may not change its id".into(),
            ));
        }
        self.check_email(&user)?;
        Ok(self.write(user))
    }
}

impl State {
    /// Deletes an account with everything it owns; the account goes last (one step
    /// here, so the order only matters to a backend that takes several).
    fn delete_user(&mut self, id: &str) -> Option<User> {
        if !self.accounts.users.contains_key(id) {
            return None;
        }
        self.sessions.forget_user(id);
        self.secrets.forget_owner(id);
        self.marks.forget_reader(id);
        self.reading.forget_reader(id);
        self.records.forget_user(id);
        self.keys.forget_owner(id);
        self.billing.forget_user(id);
        let user = self.accounts.users.remove(id)?;
        self.accounts.unindex(&user);
        Some(Arc::unwrap_or_clone(user))
    }
}

#[async_trait::async_trait]
impl AccountStore for MemoryBackend {
    async fn insert_user(&self, user: &User) -> Result<()> {
        let mut state = self.lock();
        let accounts = &mut state.accounts;
        if accounts.users.contains_key(&user.id) {
            return Err(Error::Conflict(format!("user {} already exists", user.id)));
        }
        if accounts.by_email.contains_key(&user.email) {
            return Err(Error::Conflict("User already registered".into()));
        }
        accounts.write(user.clone());
        Ok(())
    }

    async fn user(&self, id: &str) -> Result<Option<Arc<User>>> {
        Ok(self.lock().accounts.get(id).cloned())
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<Arc<User>>> {
        let state = self.lock();
        let accounts = &state.accounts;
        Ok(accounts
            .by_email
            .get(email)
            .and_then(|id| accounts.get(id))
            .cloned())
    }

    async fn user_by_customer(&self, customer_id: &str) -> Result<Option<Arc<User>>> {
        let state = self.lock();
        let accounts = &state.accounts;
        Ok(accounts
            .by_customer
            .get(customer_id)
            .and_then(|id| accounts.get(id))
            .cloned())
    }

    async fn update_user(&self, id: &str, change: &mut UserChange<'_>) -> Result<User> {
        let mut state = self.lock();
        state.accounts.update(id, change).map(Arc::unwrap_or_clone)
    }

    async fn delete_user(&self, id: &str) -> Result<Option<User>> {
        Ok(self.lock().delete_user(id))
    }

    async fn users_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<User>> {
        let state = self.lock();
        let accounts = &state.accounts;
        let lower = match after {
            Some(after) => Bound::Excluded(after),
            None => Bound::Unbounded,
        };
        Ok(accounts
            .by_email
            .range::<str, _>((lower, Bound::Unbounded))
            .filter_map(|(_, id)| accounts.get(id))
            .take(limit)
            .map(|u| User::clone(u))
            .collect())
    }

    async fn user_count(&self) -> Result<u64> {
        Ok(self.lock().accounts.users.len() as u64)
    }
}
