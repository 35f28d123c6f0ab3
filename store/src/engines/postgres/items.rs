//! News items, their listings and their change log in PostgreSQL (see the module doc of
//! `postgres` on why item writes lock `items_meta` first).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use futures_util::future::try_join4;
use tokio_postgres::types::ToSql;

use super::{
    JsonText, PostgresBackend, RawJson, bigint, db_error, get, get_unsigned, prepare_all, rows,
    unsigned,
};
use crate::backend::{
    FeedPosition, ItemChange, ItemStore, ItemWritten, Json, NewestPage, NewestQuery, StoredItem,
};
use crate::catalogue::{SortBy, SortOrder};
use crate::{Mark, NewsItem, Result};

/// The public listing's title order: the title lower-cased, NULs dropped, cut to 256
/// bytes on a character boundary, then the id (the order every engine keeps).
pub(super) fn title_key(title: &str) -> String {
    let mut folded: String = title
        .to_lowercase()
        .chars()
        .filter(|c| *c != '\0')
        .collect();
    let mut end = folded.len().min(256);
    while !folded.is_char_boundary(end) {
        end -= 1;
    }
    folded.truncate(end);
    folded
}

/// Locks the items' version row: the first statement of every item write.
pub(super) const LOCK_ITEMS: &str = "SELECT version, item_count FROM items_meta FOR UPDATE";

/// One item as the batch leaves it.
struct Final<'a> {
    published_ms: i64,
    title_key: String,
    /// The URL it holds after the batch.
    url: Option<&'a str>,
    body: &'a [u8],
}

/// The rows a batch leaves, in the order of their first write, with the URLs each
/// holds: a URL belongs to the last item written with it; an item rewritten releases
/// the URL it held before.
fn settle(items: &[StoredItem]) -> (Vec<&str>, HashMap<&str, Final<'_>>) {
    let mut order = Vec::new();
    let mut rows: HashMap<&str, Final<'_>> = HashMap::with_capacity(items.len());
    let mut holder: HashMap<&str, &str> = HashMap::new();
    for s in items {
        let id = s.item.id.as_str();
        match rows.get(id) {
            Some(prev) => {
                if let Some(u) = prev.url
                    && holder.get(u) == Some(&id)
                {
                    holder.remove(u);
                }
            }
            None => order.push(id),
        }
        let url = s.item.url.as_deref();
        if let Some(u) = url
            && let Some(other) = holder.insert(u, id)
            && other != id
            && let Some(o) = rows.get_mut(other)
        {
            o.url = None;
        }
        rows.insert(
            id,
            Final {
                published_ms: s.item.published_date.timestamp_millis(),
                title_key: title_key(&s.item.title),
                url,
                body: &s.json,
            },
        );
    }
    (order, rows)
}

/// The order columns and direction of the public listing.
fn catalogue_order(sort: SortBy, order: SortOrder, reverse: bool) -> (&'static str, &'static str) {
    let columns = match sort {
        SortBy::PublishedDate => "published_ms, id",
        SortBy::Title => "title_key, id",
        SortBy::Id => "id",
    };
    let desc = matches!(order, SortOrder::Desc) != reverse;
    (columns, if desc { "DESC" } else { "ASC" })
}

/// `columns` each followed by `dir`.
fn order_by(columns: &str, dir: &str) -> String {
    columns
        .split(", ")
        .map(|c| format!("{c} {dir}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[async_trait::async_trait]
impl ItemStore for PostgresBackend {
    async fn items_version(&self) -> Result<u64> {
        let row = self.one("SELECT version FROM items_meta", &[]).await?;
        get_unsigned(&row, 0)
    }

    async fn item(&self, id: &str) -> Result<Option<Json>> {
        match self
            .opt("SELECT body FROM items WHERE id = $1", &[&id])
            .await?
        {
            Some(row) => Ok(Some(get::<RawJson>(&row, 0)?.0)),
            None => Ok(None),
        }
    }

    async fn items(&self, ids: &[String]) -> Result<Vec<Option<Json>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self
            .rows("SELECT id, body FROM items WHERE id = ANY($1)", &[&ids])
            .await?;
        let mut found = HashMap::with_capacity(rows.len());
        for row in &rows {
            found.insert(get::<&str>(row, 0)?, get::<RawJson>(row, 1)?.0);
        }
        Ok(ids
            .iter()
            .map(|id| found.get(id.as_str()).cloned())
            .collect())
    }

    async fn item_exists(&self, id: &str) -> Result<bool> {
        Ok(self
            .opt("SELECT 1 FROM items WHERE id = $1", &[&id])
            .await?
            .is_some())
    }

    async fn item_count(&self) -> Result<u64> {
        let row = self.one("SELECT item_count FROM items_meta", &[]).await?;
        get_unsigned(&row, 0)
    }

    async fn item_id_by_url(&self, url: &str) -> Result<Option<String>> {
        match self
            .opt("SELECT id FROM items WHERE url = $1", &[&url])
            .await?
        {
            Some(row) => Ok(Some(get(&row, 0)?)),
            None => Ok(None),
        }
    }

    async fn put_items(&self, items: &[StoredItem]) -> Result<Vec<ItemWritten>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let (order, finals) = settle(items);
        let mut ids = Vec::with_capacity(order.len());
        let mut published = Vec::with_capacity(order.len());
        let mut titles = Vec::with_capacity(order.len());
        let mut urls = Vec::with_capacity(order.len());
        let mut bodies = Vec::with_capacity(order.len());
        let (mut held_ids, mut held_urls) = (Vec::new(), Vec::new());
        for id in &order {
            let row = &finals[id];
            ids.push(*id);
            published.push(row.published_ms);
            titles.push(row.title_key.as_str());
            urls.push(row.url);
            bodies.push(JsonText(row.body));
            if let Some(u) = row.url {
                held_ids.push(*id);
                held_urls.push(u);
            }
        }
        let logged: Vec<&str> = items.iter().map(|s| s.item.id.as_str()).collect();

        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let [lock, existing, release, upsert, log, meta] = prepare_all(
            &tx,
            [
                LOCK_ITEMS,
                "SELECT id FROM items WHERE id = ANY($1::text[])",
                // A URL the batch gives to an item is released by any other item.
                "UPDATE items AS i SET url = NULL \
                 FROM unnest($1::text[], $2::text[]) AS f(id, url) \
                 WHERE i.url = f.url AND i.id <> f.id",
                "INSERT INTO items (id, published_ms, title_key, url, body) \
                 SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], \
                                      $5::json[]) \
                 ON CONFLICT (id) DO UPDATE SET published_ms = excluded.published_ms, \
                     title_key = excluded.title_key, url = excluded.url, body = excluded.body",
                "INSERT INTO item_changes (seq, item_id) \
                 SELECT $1::bigint + n, id FROM unnest($2::text[]) WITH ORDINALITY AS c(id, n)",
                "UPDATE items_meta SET version = $1, item_count = $2",
            ],
        )
        .await?;
        let head = tx.query_one(&lock, &[]).await.map_err(db_error)?;
        let (base, count): (i64, i64) = (get(&head, 0)?, get(&head, 1)?);
        let first_change = unsigned::<u64>(base)? + 1;
        let (existing, _, _, _) = try_join4(
            tx.query(&existing, &[&ids]),
            tx.execute(&release, &[&held_ids, &held_urls]),
            tx.execute(&upsert, &[&ids, &published, &titles, &urls, &bodies]),
            tx.execute(&log, &[&base, &logged]),
        )
        .await
        .map_err(db_error)?;
        let mut new: HashSet<&str> = ids.iter().copied().collect();
        for row in &existing {
            new.remove(get::<&str>(row, 0)?);
        }
        let version = base + bigint(items.len());
        let total = count + bigint(new.len());
        tx.execute(&meta, &[&version, &total])
            .await
            .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;

        let mut out = Vec::with_capacity(items.len());
        for (change, s) in (first_change..).zip(items) {
            // An id written twice in one batch was created by its first write only.
            out.push(ItemWritten {
                created: new.remove(s.item.id.as_str()),
                change,
            });
        }
        Ok(out)
    }

    async fn remove_item(&self, id: &str) -> Result<Option<(NewsItem, u64)>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let [lock, item, readers, marks, counts, delete, log, meta] = prepare_all(
            &tx,
            [
                LOCK_ITEMS,
                "SELECT body FROM items WHERE id = $1 FOR UPDATE",
                // Readers' state rows before their marks, as a change of marks takes
                // them. Holding the item, no mark of it can be added meanwhile.
                "SELECT 1 FROM reader_state \
                 WHERE reader IN (SELECT reader FROM marks WHERE item = $1) \
                 ORDER BY reader FOR UPDATE",
                "DELETE FROM marks WHERE item = $1 RETURNING reader, \
                 (favorite_at IS NOT NULL)::integer::bigint, (hidden_at IS NOT NULL)::integer::bigint, \
                 (read_at IS NOT NULL)::integer::bigint",
                "UPDATE reader_state AS s SET favorites = s.favorites - d.f, \
                     hidden = s.hidden - d.h, read = s.read - d.r, version = s.version + 1 \
                 FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) \
                     AS d(reader, f, h, r) \
                 WHERE s.reader = d.reader",
                "DELETE FROM items WHERE id = $1",
                "INSERT INTO item_changes (seq, item_id) VALUES ($1, $2)",
                "UPDATE items_meta SET version = $1, item_count = item_count - 1",
            ],
        )
        .await?;
        let head = tx.query_one(&lock, &[]).await.map_err(db_error)?;
        let base: i64 = get(&head, 0)?;
        let Some(row) = tx.query_opt(&item, &[&id]).await.map_err(db_error)? else {
            return Ok(None);
        };
        let body: RawJson = get(&row, 0)?;
        let removed: NewsItem = serde_json::from_slice(&body.0)?;
        let (_, marked) =
            futures_util::future::try_join(tx.execute(&readers, &[&id]), tx.query(&marks, &[&id]))
                .await
                .map_err(db_error)?;
        let (mut who, mut f, mut h, mut r) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for row in &marked {
            who.push(get::<&str>(row, 0)?);
            f.push(get::<i64>(row, 1)?);
            h.push(get::<i64>(row, 2)?);
            r.push(get::<i64>(row, 3)?);
        }
        let seq = base + 1;
        let change = unsigned(seq)?;
        try_join4(
            tx.execute(&counts, &[&who, &f, &h, &r]),
            tx.execute(&delete, &[&id]),
            tx.execute(&log, &[&seq, &id]),
            tx.execute(&meta, &[&seq]),
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(Some((removed, change)))
    }

    async fn newest(&self, query: NewestQuery<'_>) -> Result<NewestPage> {
        let limit = bigint(query.limit).min(i64::from(i32::MAX)) + 1;
        let after = query.after.map(|p| (p.published_ms, p.id.as_str()));
        let mut filter = Filter::of(&query);
        if let Some((ms, id)) = &after {
            let (a, b) = (filter.param(ms), filter.param(id));
            filter.and(format!("(i.published_ms, i.id) < (${a}, ${b})"));
        }
        let limit_at = filter.param(&limit);
        let sql = format!(
            "SELECT i.id, i.published_ms, i.body FROM items AS i {} \
             ORDER BY i.published_ms DESC, i.id DESC LIMIT ${limit_at}",
            filter.clause()
        );
        let client = self.client().await?;
        let found = rows(&client, &sql, &filter.params).await?;
        let has_more = found.len() > query.limit;
        let mut page = NewestPage {
            items: Vec::with_capacity(found.len().min(query.limit)),
            last: None,
            has_more,
        };
        for row in found.iter().take(query.limit) {
            page.items.push(get::<RawJson>(row, 2)?.0);
            page.last = Some(FeedPosition {
                published_ms: get(row, 1)?,
                id: get(row, 0)?,
            });
        }
        Ok(page)
    }

    async fn count_newest(&self, query: NewestQuery<'_>) -> Result<u64> {
        let filter = Filter::of(&query);
        let sql = format!("SELECT count(*) FROM items AS i {}", filter.clause());
        let client = self.client().await?;
        let found = rows(&client, &sql, &filter.params).await?;
        let count: i64 = found
            .first()
            .map(|row| get(row, 0))
            .transpose()?
            .unwrap_or(0);
        unsigned(count)
    }

    async fn catalogue(
        &self,
        sort: SortBy,
        order: SortOrder,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<Json>> {
        let total = self.item_count().await?;
        if limit == 0 || offset >= total {
            return Ok(Vec::new());
        }
        let limit = limit.min(total - offset);
        // A page in the far half is read from the other end: no page skips more than
        // half the index.
        let from_end = total - offset - limit;
        let reverse = from_end < offset;
        let skip = if reverse { from_end } else { offset };
        let (columns, dir) = catalogue_order(sort, order, reverse);
        let sql = format!(
            "SELECT i.body FROM (SELECT {columns} FROM items ORDER BY {inner} \
             OFFSET $1 LIMIT $2) AS p JOIN items AS i ON i.id = p.id ORDER BY {outer}",
            inner = order_by(columns, dir),
            outer = order_by(
                &columns
                    .split(", ")
                    .map(|c| format!("p.{c}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                dir
            ),
        );
        let found = self.rows(&sql, &[&bigint(skip), &bigint(limit)]).await?;
        let mut out = found
            .iter()
            .map(|row| Ok(get::<RawJson>(row, 0)?.0))
            .collect::<Result<Vec<_>>>()?;
        if reverse {
            out.reverse();
        }
        Ok(out)
    }

    async fn published_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Vec<Json>> {
        let found = self
            .rows(
                "SELECT body FROM items WHERE published_ms >= $1 AND published_ms < $2 \
                 ORDER BY published_ms, id",
                &[&from.timestamp_millis(), &to.timestamp_millis()],
            )
            .await?;
        found
            .iter()
            .map(|row| Ok(get::<RawJson>(row, 0)?.0))
            .collect()
    }

    async fn items_after(&self, after: Option<&str>, limit: usize) -> Result<Vec<Json>> {
        let limit = bigint(limit);
        let found = match after {
            Some(after) => {
                self.rows(
                    "SELECT body FROM items WHERE id > $1 ORDER BY id LIMIT $2",
                    &[&after, &limit],
                )
                .await?
            }
            None => {
                self.rows("SELECT body FROM items ORDER BY id LIMIT $1", &[&limit])
                    .await?
            }
        };
        found
            .iter()
            .map(|row| Ok(get::<RawJson>(row, 0)?.0))
            .collect()
    }

    async fn item_changes(&self, after: u64, limit: usize) -> Result<Vec<ItemChange>> {
        let found = self
            .rows(
                "SELECT seq, item_id FROM item_changes WHERE seq > $1 ORDER BY seq LIMIT $2",
                &[&bigint(after), &bigint(limit)],
            )
            .await?;
        found
            .iter()
            .map(|row| {
                Ok(ItemChange {
                    seq: get_unsigned(row, 0)?,
                    id: get(row, 1)?,
                })
            })
            .collect()
    }

    async fn forget_item_changes(&self, _seqs: &[u64]) -> Result<()> {
        // Kept for every other replica that follows the log, until its retention ends
        // (see `PostgresBackend::prune`).
        Ok(())
    }

    async fn change_log_pruned_through(&self) -> Result<u64> {
        let row = self
            .one("SELECT pruned_through FROM items_meta", &[])
            .await?;
        get_unsigned(&row, 0)
    }
}

/// The `WHERE` of a newest-first listing: the reader's marks that leave it, the cut-off
/// and the covered items of a listing of leads, with their parameters in order.
struct Filter<'q> {
    conditions: Vec<String>,
    params: Vec<&'q (dyn ToSql + Sync)>,
}

impl<'q> Filter<'q> {
    fn of(query: &'q NewestQuery<'q>) -> Self {
        let mut f = Filter {
            conditions: Vec::new(),
            params: Vec::new(),
        };
        let leaves = |m: Mark| query.leave_out.contains(&m);
        if let Some(reader) = query
            .reader
            .as_ref()
            .filter(|_| Mark::ALL.into_iter().any(leaves))
        {
            // Items the reader marked with a mark that leaves the listing.
            let r = f.param(reader);
            let any = Mark::ALL
                .into_iter()
                .filter(|m| leaves(*m))
                .map(|m| format!("m.{} IS NOT NULL", super::marks::columns(m).0))
                .collect::<Vec<_>>()
                .join(" OR ");
            f.and(format!(
                "NOT EXISTS (SELECT 1 FROM marks AS m WHERE m.reader = ${r} AND m.item = i.id \
                 AND ({any}))"
            ));
        }
        if let Some(ms) = &query.since_ms {
            let at = f.param(ms);
            f.and(format!("i.published_ms >= ${at}"));
        }
        if query.leads_only {
            // Members of a story another item leads (see `stories`).
            f.and(
                "NOT EXISTS (SELECT 1 FROM story_members AS s WHERE s.item = i.id AND s.covered)"
                    .into(),
            );
        }
        f
    }

    /// Adds a parameter and answers its number.
    fn param(&mut self, value: &'q (dyn ToSql + Sync)) -> usize {
        self.params.push(value);
        self.params.len()
    }

    fn and(&mut self, condition: String) {
        self.conditions.push(condition);
    }

    fn clause(&self) -> String {
        if self.conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", self.conditions.join(" AND "))
        }
    }
}
