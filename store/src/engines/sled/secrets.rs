//! One-time secrets in sled: `onetime_tokens` (e-mailed links, reauthentication codes)
//! and `authcodes` (PKCE authorization codes, purposes starting `code:`), each by the
//! secret's SHA-256, with `userid_onetime` and `userid_authcode` holding the one live
//! secret per user and purpose.
//!
//! A stored value is `{"owner", "purpose", "body"}`. Values written before this layout
//! are the rules' record alone, which names its owner (`user_id`) and its purpose
//! (`kind`, or an authorization code's `purpose`): they are read as such.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::accounts::update_user_tx;
use super::{SledBackend, keys};
use crate::backend::{SecretLookup, SecretRule, SecretStore, UserChange};
use crate::secrets::{SecretRecord, SecretUse};
use crate::{Error, Result, User};

/// The prefix of an authorization code's purpose: those live in `authcodes`.
const CODE: &str = "code:";

#[derive(Serialize, Deserialize)]
struct Stored {
    owner: String,
    purpose: String,
    body: serde_json::Value,
}

fn encode(s: &SecretRecord) -> Result<Vec<u8>> {
    Ok(serde_json::to_vec(&Stored {
        owner: s.owner.clone(),
        purpose: s.purpose.clone(),
        body: serde_json::from_slice(&s.body)?,
    })?)
}

fn decode(hash: [u8; 32], raw: &[u8], codes: bool) -> Result<SecretRecord> {
    let value: serde_json::Value = serde_json::from_slice(raw)?;
    if let Ok(s) = serde_json::from_value::<Stored>(value.clone()) {
        return Ok(SecretRecord {
            hash,
            owner: s.owner,
            purpose: s.purpose,
            body: serde_json::to_vec(&s.body)?,
        });
    }
    let text = |k: &str| value.get(k).and_then(|v| v.as_str()).unwrap_or_default();
    let purpose = if codes {
        format!("{CODE}{}", text("purpose"))
    } else {
        text("kind").to_string()
    };
    Ok(SecretRecord {
        hash,
        owner: text("user_id").to_string(),
        purpose,
        body: raw.to_vec(),
    })
}

/// The two trees of a purpose: the secrets and the owners' slots.
fn trees_of<'a>(t: &'a super::Trees, purpose: &str) -> (&'a sled::Tree, &'a sled::Tree) {
    if purpose.starts_with(CODE) {
        (&t.authcodes, &t.userid_authcode)
    } else {
        (&t.onetime_tokens, &t.userid_onetime)
    }
}

/// Stores a secret in its owner's slot inside a transaction, spending the one it held.
fn put_tx(
    secrets: &TransactionalTree,
    slots: &TransactionalTree,
    s: &SecretRecord,
    value: &[u8],
) -> std::result::Result<(), ConflictableTransactionError<Error>> {
    let slot = keys::join(s.owner.as_bytes(), s.purpose.as_bytes());
    if let Some(old) = slots.insert(slot.as_slice(), &s.hash)? {
        secrets.remove(old)?;
    }
    secrets.insert(&s.hash, value)?;
    Ok(())
}

impl SledBackend {
    /// Deletes every secret of a user (account deletion).
    pub(crate) fn forget_secrets(&self, owner: &str) -> Result<()> {
        for (secrets, slots) in [
            (&self.t.onetime_tokens, &self.t.userid_onetime),
            (&self.t.authcodes, &self.t.userid_authcode),
        ] {
            for entry in slots.scan_prefix(keys::prefix(owner)) {
                let (slot, hash) = entry?;
                secrets.remove(hash)?;
                slots.remove(slot)?;
            }
        }
        Ok(())
    }

    /// Every live secret of an owner, by purpose (moving an install).
    pub(crate) fn owned_secrets(&self, owner: &str) -> Result<Vec<SecretRecord>> {
        let mut out = Vec::new();
        for (secrets, slots, codes) in [
            (&self.t.onetime_tokens, &self.t.userid_onetime, false),
            (&self.t.authcodes, &self.t.userid_authcode, true),
        ] {
            for entry in slots.scan_prefix(keys::prefix(owner)) {
                let (_, hash) = entry?;
                let Ok(hash) = <[u8; 32]>::try_from(hash.as_ref()) else {
                    continue;
                };
                if let Some(raw) = secrets.get(hash)? {
                    out.push(decode(hash, &raw, codes)?);
                }
            }
        }
        out.sort_by(|a, b| a.purpose.cmp(&b.purpose));
        Ok(out)
    }
}

#[async_trait::async_trait]
impl SecretStore for SledBackend {
    async fn put_secret(
        &self,
        secret: &SecretRecord,
        stamp: Option<&mut UserChange<'_>>,
    ) -> Result<()> {
        self.writable()?;
        let value = encode(secret)?;
        let t = &self.t;
        let (secrets, slots) = trees_of(t, &secret.purpose);
        match stamp {
            Some(stamp) => {
                let stamp = RefCell::new(stamp);
                (
                    &t.users,
                    &t.email_userid,
                    &t.customerid_userid,
                    secrets,
                    slots,
                )
                    .transaction(
                        |(users, emails, customers, secrets, slots)| {
                            update_user_tx(
                                users,
                                emails,
                                customers,
                                &secret.owner,
                                *stamp.borrow_mut(),
                            )?;
                            put_tx(secrets, slots, secret, &value)
                        },
                    )?;
            }
            None => (&t.users, secrets, slots).transaction(|(users, secrets, slots)| {
                if users.get(secret.owner.as_bytes())?.is_none() {
                    return Err(Error::NotFound("user").into());
                }
                put_tx(secrets, slots, secret, &value)
            })?,
        }
        self.sync()
    }

    async fn put_secrets(
        &self,
        owner: &str,
        secrets: &[SecretRecord],
        clear: &[&str],
        change: &mut UserChange<'_>,
    ) -> Result<User> {
        self.writable()?;
        let values = secrets.iter().map(encode).collect::<Result<Vec<_>>>()?;
        let t = &self.t;
        let change = RefCell::new(change);
        let user = (
            &t.users,
            &t.email_userid,
            &t.customerid_userid,
            &t.onetime_tokens,
            &t.userid_onetime,
        )
            .transaction(|(users, emails, customers, tokens, slots)| {
                if secrets
                    .iter()
                    .any(|s| s.purpose.starts_with(CODE) || s.owner != owner)
                {
                    return Err(Error::Invalid(
                        "put_secrets takes one owner's e-mailed links".into(),
                    )
                    .into());
                }
                for (s, value) in secrets.iter().zip(&values) {
                    put_tx(tokens, slots, s, value)?;
                }
                for purpose in clear {
                    let slot = keys::join(owner.as_bytes(), purpose.as_bytes());
                    if let Some(old) = slots.remove(slot.as_slice())? {
                        tokens.remove(old)?;
                    }
                }
                update_user_tx(users, emails, customers, owner, *change.borrow_mut())
            })?;
        self.sync()?;
        Ok(user)
    }

    async fn use_secret(
        &self,
        by: SecretLookup<'_>,
        rule: &mut SecretRule<'_>,
    ) -> Result<Option<SecretRecord>> {
        self.writable()?;
        let t = &self.t;
        // A hash may be in either tree; the purpose says which for a slot.
        let candidates: Vec<(&sled::Tree, &sled::Tree, bool)> = match by {
            SecretLookup::Slot { purpose, .. } => {
                let (s, o) = trees_of(t, purpose);
                vec![(s, o, purpose.starts_with(CODE))]
            }
            SecretLookup::Hash(hash) => {
                if t.authcodes.contains_key(hash)? {
                    vec![(&t.authcodes, &t.userid_authcode, true)]
                } else {
                    vec![(&t.onetime_tokens, &t.userid_onetime, false)]
                }
            }
        };
        let (secrets, slots, codes) = candidates[0];
        // The purposes the owner holds, read before the transaction (sled cannot scan in
        // one) and confirmed inside it.
        let owner_of = |hash: &[u8]| -> Result<Option<String>> {
            Ok(match secrets.get(hash)? {
                Some(raw) => {
                    let h = <[u8; 32]>::try_from(hash).unwrap_or([0; 32]);
                    Some(decode(h, &raw, codes)?.owner)
                }
                None => None,
            })
        };
        let owner = match by {
            SecretLookup::Slot { owner, .. } => Some(owner.to_string()),
            SecretLookup::Hash(h) => owner_of(h)?,
        };
        let mut held_slots = Vec::new();
        if let Some(owner) = &owner {
            for key in slots.scan_prefix(keys::prefix(owner)).keys() {
                held_slots.push(key?.to_vec());
            }
        }
        let rule = RefCell::new(rule);
        let out = (secrets, slots).transaction(|(secrets, slots)| {
            let hash = match by {
                SecretLookup::Hash(h) => Some(*h),
                SecretLookup::Slot { owner, purpose } => slots
                    .get(keys::join(owner.as_bytes(), purpose.as_bytes()))?
                    .and_then(|h| <[u8; 32]>::try_from(h.as_ref()).ok()),
            };
            let record = match hash {
                Some(h) => match secrets.get(h)? {
                    Some(raw) => Some(decode(h, &raw, codes)?),
                    None => None,
                },
                None => None,
            };
            let mut purposes = Vec::new();
            for key in &held_slots {
                if slots.get(key.as_slice())?.is_some()
                    && let Some(p) = keys::last_part(key)
                {
                    purposes.push(p.to_string());
                }
            }
            let decided = {
                let mut rule = rule.borrow_mut();
                (*rule)(record.as_ref(), &purposes)
            };
            match (decided, &record) {
                (_, None) | (SecretUse::Keep, _) => {}
                (SecretUse::Update(body), Some(r)) => {
                    let updated = SecretRecord { body, ..r.clone() };
                    let value = encode(&updated)?;
                    secrets.insert(&r.hash, value)?;
                }
                (SecretUse::Spend, Some(r)) => {
                    secrets.remove(&r.hash)?;
                    let slot = keys::join(r.owner.as_bytes(), r.purpose.as_bytes());
                    if slots
                        .get(slot.as_slice())?
                        .is_some_and(|h| h.as_ref() == r.hash.as_slice())
                    {
                        slots.remove(slot.as_slice())?;
                    }
                }
            }
            Ok(record)
        })?;
        self.sync()?;
        Ok(out)
    }
}
