//! Accounts in sled: `users` by id, `email_userid` by e-mail, `customerid_userid` by the
//! payment provider's customer id; each write keeps the lookups in step in one
//! transaction.

use std::cell::RefCell;
use std::sync::Arc;

use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::{SledBackend, from_json, to_json};
use crate::backend::{AccountStore, UserChange};
use crate::{Error, Result, User};

/// Writes `user`, whose stored record was `old`, keeping the e-mail and customer lookups
/// in step, inside a transaction of `users`, `email_userid` and `customerid_userid`.
pub(crate) fn write_user_tx(
    users: &TransactionalTree,
    emails: &TransactionalTree,
    customers: &TransactionalTree,
    old: &User,
    user: &User,
) -> std::result::Result<(), ConflictableTransactionError<Error>> {
    if old.email != user.email {
        if emails
            .get(user.email.as_bytes())?
            .is_some_and(|owner| owner.as_ref() != user.id.as_bytes())
        {
            return Err(Error::Conflict(
                "A user with this email address has already been registered".into(),
            )
            .into());
        }
        emails.remove(old.email.as_bytes())?;
        emails.insert(user.email.as_bytes(), user.id.as_bytes())?;
    }
    let (was, now) = (
        &old.subscription.customer_id,
        &user.subscription.customer_id,
    );
    if was != now {
        if let Some(c) = was
            && customers.get(c.as_bytes())?.as_deref() == Some(user.id.as_bytes())
        {
            customers.remove(c.as_bytes())?;
        }
        if let Some(c) = now {
            customers.insert(c.as_bytes(), user.id.as_bytes())?;
        }
    }
    users.insert(user.id.as_bytes(), to_json(user))?;
    Ok(())
}

/// Reads, changes and writes one account inside a transaction of the account trees.
pub(crate) fn update_user_tx(
    users: &TransactionalTree,
    emails: &TransactionalTree,
    customers: &TransactionalTree,
    id: &str,
    change: &mut UserChange<'_>,
) -> std::result::Result<User, ConflictableTransactionError<Error>> {
    let Some(raw) = users.get(id.as_bytes())? else {
        return Err(Error::NotFound("user").into());
    };
    let old: User = from_json(&raw)?;
    let mut user = old.clone();
    change(&mut user)?;
    write_user_tx(users, emails, customers, &old, &user)?;
    Ok(user)
}

impl SledBackend {
    /// Deletes every record a user owns but the account itself.
    fn forget_user_records(&self, id: &str) -> Result<()> {
        let sessions = self.session_ids(id)?;
        self.end_sessions_now(&sessions)?;
        self.forget_secrets(id)?;
        self.forget_marks(id)?;
        self.forget_reads(id)?;
        self.forget_api_key(id)?;
        self.forget_quotas(id)?;
        self.t.userid_profile.remove(id.as_bytes())?;
        self.forget_waitlist_entry(id)?;
        self.forget_checkouts(id)?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl AccountStore for SledBackend {
    async fn insert_user(&self, user: &User) -> Result<()> {
        self.writable()?;
        let t = &self.t;
        (&t.users, &t.email_userid, &t.customerid_userid).transaction(
            |(users, emails, customers)| {
                if emails.get(user.email.as_bytes())?.is_some() {
                    return Err(Error::Conflict("User already registered".into()).into());
                }
                emails.insert(user.email.as_bytes(), user.id.as_bytes())?;
                if let Some(customer) = &user.subscription.customer_id {
                    customers.insert(customer.as_bytes(), user.id.as_bytes())?;
                }
                users.insert(user.id.as_bytes(), to_json(user))?;
                Ok(())
            },
        )?;
        self.sync()
    }

    async fn user(&self, id: &str) -> Result<Option<Arc<User>>> {
        self.mem.users.get(&self.t.users, id)
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<Arc<User>>> {
        match self.t.email_userid.get(email.as_bytes())? {
            Some(id) => self.user(&String::from_utf8_lossy(&id)).await,
            None => Ok(None),
        }
    }

    async fn user_by_customer(&self, customer_id: &str) -> Result<Option<Arc<User>>> {
        match self.t.customerid_userid.get(customer_id.as_bytes())? {
            Some(id) => self.user(&String::from_utf8_lossy(&id)).await,
            None => Ok(None),
        }
    }

    async fn update_user(&self, id: &str, change: &mut UserChange<'_>) -> Result<User> {
        self.writable()?;
        let t = &self.t;
        // sled may run a transaction's closure more than once; the rule may run again.
        let change = RefCell::new(change);
        let user = (&t.users, &t.email_userid, &t.customerid_userid).transaction(
            |(users, emails, customers)| {
                update_user_tx(users, emails, customers, id, *change.borrow_mut())
            },
        )?;
        self.sync()?;
        Ok(user)
    }

    async fn delete_user(&self, id: &str) -> Result<Option<User>> {
        self.writable()?;
        let Some(user) = self
            .t
            .users
            .get(id)?
            .map(|v| from_json::<User>(&v))
            .transpose()?
        else {
            return Ok(None);
        };
        self.forget_user_records(id)?;
        let t = &self.t;
        (&t.users, &t.email_userid, &t.customerid_userid).transaction(
            |(users, emails, customers)| {
                users.remove(id.as_bytes())?;
                emails.remove(user.email.as_bytes())?;
                if let Some(c) = &user.subscription.customer_id
                    && customers.get(c.as_bytes())?.as_deref() == Some(id.as_bytes())
                {
                    customers.remove(c.as_bytes())?;
                }
                Ok(())
            },
        )?;
        self.sync()?;
        Ok(Some(user))
    }

    async fn users_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<User>> {
        let range = match after {
            Some(a) => {
                let mut from = a.as_bytes().to_vec();
                from.push(0);
                self.t.email_userid.range(from..)
            }
            None => self.t.email_userid.iter(),
        };
        let mut out = Vec::with_capacity(limit.min(1024));
        for entry in range {
            if out.len() == limit {
                break;
            }
            let (_, id) = entry?;
            if let Some(raw) = self.t.users.get(id)? {
                out.push(from_json(&raw)?);
            }
        }
        Ok(out)
    }

    async fn user_count(&self) -> Result<u64> {
        Ok(self.t.users.len() as u64)
    }
}
