//! Flink 2.3.0's `SinkUpsertMaterializer` (`flink-table-runtime/.../operators/sink/`, read from
//! the 2.3.0 bytecode in `flink-table-runtime-2.3.0.jar`): the classic materializer that
//! `StreamExecSink` runs under the default `table.exec.sink.upsert-materialize-strategy.type =
//! LEGACY`. Keyed by the sink's primary key, it keeps **every** row of the key that is still
//! alive upstream, in arrival order, in one `ValueState<List<RowData>>` named `"values"`:
//!
//! ```text
//! processElement(row):
//!     values = state.value() ?? new ArrayList
//!     INSERT, UPDATE_AFTER  → addRow(values, row)
//!     UPDATE_BEFORE, DELETE → retractRow(values, row)
//!
//! addRow:     kind = values.isEmpty() ? INSERT : UPDATE_AFTER
//!             if hasUpsertKey: i = findFirst(values, row); i == -1 ? values.add(row) : values.set(i, row)
//!             else values.add(row)
//!             row.setRowKind(kind); collect(row); state.update(values)
//! retractRow: last = values.size() - 1; i = findFirst(values, row)
//!             if i == -1: LOG.info("The state is cleared because of state ttl. …"); return   // no write
//!             values.remove(i)
//!             if values.isEmpty(): row.setRowKind(DELETE); collect(row)        // the retraction's own row
//!             else if i == last: values.get(size - 1) as UPDATE_AFTER; collect  // the new latest row
//!             values.isEmpty() ? state.clear() : state.update(values)
//! findFirst:  the first stored row equal to row ignoring the RowKind: on the upsert key when the
//!             input has one (`inputUpsertKey`), else on every field
//! ```
//!
//! So a `-U`/`-D` of a row that is not the key's latest emits nothing, and a retraction of the
//! latest one brings back the previous row (`+U`) or deletes the key (`-D`). The state's TTL is
//! `StateConfigUtil.createTtlConfig(ttl)` (`OnCreateAndWrite`, `NeverReturnExpired`, processing
//! time): each write re-stamps the whole list; a retraction that finds nothing writes nothing.
//! Real Flink 2.3.0 agrees (`shared/oracle/joins/sinkpk_*`).

use super::upsert_materialize::SinkUpsertMaterializerSpec;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};

/// `SinkUpsertMaterializer`'s log line when a retraction finds no row (`STATE_CLEARED_WARN_MSG`,
/// logged at INFO).
pub const STATE_CLEARED_MSG: &str =
    "The state is cleared because of state ttl. This will result in incorrect result. You can increase the state ttl \
     to avoid this.";

/// `SinkUpsertMaterializer` with its keyed state.
#[derive(Debug, Clone)]
pub struct SinkUpsertMaterializer {
    spec: SinkUpsertMaterializerSpec,
    backend: KeyedStateBackend,
    /// `"values"`: the key's rows, oldest first; the rows of all keys are counted as they come
    /// and go ([`StreamOperator::list_rows`]).
    state: ValueState<Vec<Row>>,
}

impl SinkUpsertMaterializer {
    /// `SinkUpsertMaterializer.create(StateConfigUtil.createTtlConfig(ttl), …)`.
    pub fn new(spec: SinkUpsertMaterializerSpec, state_retention_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_retention_ms);
        SinkUpsertMaterializer {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            state: ValueState::with_ttl("values", config).counting_elements(|rows: &Vec<Row>| rows.len() as u64),
        }
    }

    fn find_first(&self, values: &[Row], row: &Row) -> Option<usize> {
        values.iter().position(|v| self.spec.same_record(v, row))
    }
}

fn emit(kind: RowKind, row: &Row) -> Message {
    Message::new(Change::Kind(kind), row.clone())
}

impl StreamOperator for SinkUpsertMaterializer {
    fn flink_class(&self) -> &'static str {
        "SinkUpsertMaterializer"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.primary_key);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        // The heap backend's `value()` is the stored list itself: moved out, written back below.
        let mut values = match self.state.take_value(&mut self.backend.keys, key, now) {
            TtlRead::Fresh(values) => values,
            TtlRead::Absent => Vec::new(),
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(&key_row, expired_at_ms);
                returned.unwrap_or_default()
            }
        };
        if input.change.is_accumulate() {
            // addRow
            let kind = if values.is_empty() { RowKind::Insert } else { RowKind::UpdateAfter };
            match self.find_first(&values, &input.row).filter(|_| !self.spec.upsert_key.is_empty()) {
                Some(i) => values[i] = input.row.clone(),
                None => values.push(input.row.clone()),
            }
            ctx.collect(&key_row, emit(kind, &input.row));
            self.state.update(&mut self.backend.keys, key, values, now);
            return Ok(());
        }
        // retractRow
        let last = values.len().wrapping_sub(1);
        let Some(i) = self.find_first(&values, &input.row) else {
            // No write: the list stays as it was, its TTL stamp too.
            self.state.put_back(key, values);
            ctx.record(&key_row, || TraceEvent::Dropped { message: input.clone(), reason: STATE_CLEARED_MSG });
            return Ok(());
        };
        values.remove(i);
        if values.is_empty() {
            ctx.collect(&key_row, emit(RowKind::Delete, &input.row));
            self.state.clear(&mut self.backend.keys, key);
        } else {
            if let Some(latest) = values.last().filter(|_| i == last) {
                ctx.collect(&key_row, emit(RowKind::UpdateAfter, latest));
            } else {
                ctx.record(&key_row, || TraceEvent::Suppressed {
                    reason: "the retracted row is not the key's latest, which the sink keeps showing",
                    row: input.row.clone(),
                });
            }
            self.state.update(&mut self.backend.keys, key, values, now);
        }
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.state.name]
    }

    /// The key's rows, oldest first: `[k2, b], [k1, b]` (the last one is what the sink holds).
    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![self.state.peek(key).map(|stored| {
            let ttl = self.state.ttl_view(key, now);
            let rows = &stored.user_value;
            let text: Vec<String> = rows.iter().map(|r| format!("[{}]", r.join(", "))).collect();
            StateCell {
                time_ms: None,
                value: text.join(", "),
                entries: rows.len(),
                visible: if ttl.is_some_and(|t| t.expired) { 0 } else { rows.len() },
                ttl,
            }
        })]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        self.state.ttl_view(key, now)
    }

    fn entries_stored(&self) -> u64 {
        self.state.stored()
    }

    /// Every row of every key's `values` list, counted as the lists change (each list is one
    /// entry of [`StreamOperator::entries_stored`]).
    fn list_rows(&self) -> u64 {
        self.state.elements()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.state.name, self.state.size(now))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::operators::EmitCounts;
    use crate::engine::row::{Column, DataType, Value};
    use std::rc::Rc;

    /// `snk (k, v, PRIMARY KEY (v))` behind a query keyed on `k` (`upsert_key = [0]`), or on no
    /// key at all.
    fn materializer(upsert_key: Vec<usize>, ttl_ms: Millis) -> SinkUpsertMaterializer {
        let column = |name: &str| Column { name: name.into(), data_type: DataType::String };
        let spec = SinkUpsertMaterializerSpec {
            table: "snk".into(),
            columns: vec![column("k"), column("v")],
            primary_key: vec![1],
            upsert_key,
            conflict_strategy: None,
            state_ttl: None,
        };
        SinkUpsertMaterializer::new(spec, ttl_ms)
    }

    fn row(k: &str, v: &str) -> Row {
        Row::from(vec![Value::str(k), Value::str(v)])
    }

    /// Feeds `kind[k, v]` at `now`; returns what came out, in Flink's print format, and the
    /// reasons of what was dropped.
    fn feed(op: &mut SinkUpsertMaterializer, now: Millis, kind: RowKind, k: &str, v: &str) -> Vec<String> {
        let id: Rc<str> = Rc::from("Sink[4]");
        let (mut out, mut trace, mut lost, mut emitted) = (Vec::new(), Vec::new(), Vec::new(), EmitCounts::default());
        op.backend_mut().keys.set_ttl_time(now);
        let mut ctx = Context {
            now,
            action: 0,
            op_id: &id,
            out: &mut out,
            trace: Some(&mut trace),
            lost: &mut lost,
            emitted: &mut emitted,
        };
        op.process_element(&Message::new(Change::Kind(kind), row(k, v)), &mut ctx).unwrap();
        let dropped = trace.iter().filter_map(|e| match &e.event {
            TraceEvent::Dropped { reason, .. } => Some(format!("dropped: {reason}")),
            _ => None,
        });
        out.iter().map(ToString::to_string).chain(dropped).collect()
    }

    fn stored(op: &SinkUpsertMaterializer, v: &str, now: Millis) -> Option<String> {
        let key = op.backend.keys.lookup(&Row::from(vec![Value::str(v)]))?;
        op.key_state(key, now).remove(0).map(|c| c.value)
    }

    use RowKind::{Delete as D, Insert as I, UpdateAfter as UA, UpdateBefore as UB};

    #[test]
    fn every_row_of_a_key_is_kept_and_the_latest_is_emitted() {
        let mut op = materializer(vec![0], 0);
        assert_eq!(feed(&mut op, 1, I, "k1", "a"), ["+I[k1, a]"]);
        assert_eq!(
            feed(&mut op, 2, I, "k2", "a"),
            ["+U[k2, a]"],
            "a second row of key a is an update of the sink's row"
        );
        assert_eq!(stored(&op, "a", 2).as_deref(), Some("[k1, a], [k2, a]"));
        assert_eq!((op.entries_stored(), op.list_rows()), (1, 2), "one entry, two rows");
        // Retracting a row that is not the latest: the state shrinks, nothing is emitted.
        assert_eq!(feed(&mut op, 3, UB, "k1", "a"), Vec::<String>::new());
        assert_eq!(stored(&op, "a", 3).as_deref(), Some("[k2, a]"));
        assert_eq!(feed(&mut op, 4, I, "k3", "a"), ["+U[k3, a]"]);
        // Retracting the latest brings the previous one back as +U.
        assert_eq!(feed(&mut op, 5, D, "k3", "a"), ["+U[k2, a]"]);
        // Retracting the last one deletes the key, with the retraction's own row; the state is cleared.
        assert_eq!(feed(&mut op, 6, UB, "k2", "a"), ["-D[k2, a]"]);
        assert_eq!(stored(&op, "a", 6), None);
        assert_eq!((op.state.stored(), op.list_rows()), (0, 0));
    }

    #[test]
    fn the_upsert_key_replaces_a_row_in_place() {
        // With an upsert key a new row of the same upsert key replaces the old one where it stands.
        let mut keyed = materializer(vec![0], 0);
        feed(&mut keyed, 1, I, "k1", "a");
        feed(&mut keyed, 2, I, "k2", "a");
        assert_eq!(feed(&mut keyed, 3, UA, "k1", "a"), ["+U[k1, a]"]);
        assert_eq!(stored(&keyed, "a", 3).as_deref(), Some("[k1, a], [k2, a]"));
        // A retraction is matched on the upsert key: -U[k1, x] removes [k1, a].
        assert_eq!(feed(&mut keyed, 4, UB, "k1", "a"), Vec::<String>::new());
        // Without one, the same rows pile up and a retraction removes the first equal row.
        let mut plain = materializer(vec![], 0);
        feed(&mut plain, 1, I, "k1", "a");
        feed(&mut plain, 2, I, "k2", "a");
        assert_eq!(feed(&mut plain, 3, I, "k1", "a"), ["+U[k1, a]"]);
        assert_eq!(stored(&plain, "a", 3).as_deref(), Some("[k1, a], [k2, a], [k1, a]"));
        assert_eq!(feed(&mut plain, 4, UB, "k1", "a"), Vec::<String>::new(), "the first [k1, a] goes, not the latest");
        assert_eq!(stored(&plain, "a", 4).as_deref(), Some("[k2, a], [k1, a]"));
        assert_eq!(plain.list_rows(), 2);
    }

    #[test]
    fn a_retraction_that_finds_nothing_is_logged_and_dropped() {
        let mut op = materializer(vec![0], 0);
        assert_eq!(feed(&mut op, 1, D, "k1", "a"), [format!("dropped: {STATE_CLEARED_MSG}")]);
        assert_eq!(op.state.stored(), 0, "nothing is written");
    }

    #[test]
    fn state_ttl_drops_the_whole_list_and_every_write_restamps_it() {
        let mut op = materializer(vec![0], 10);
        feed(&mut op, 1, I, "k1", "a");
        feed(&mut op, 8, I, "k2", "a");
        let key = op.backend.keys.lookup(&Row::from(vec![Value::str("a")])).unwrap();
        let ttl = op.ttl_of(key, 8).unwrap();
        assert_eq!((ttl.last_access_ms, ttl.expires_at_ms), (8, 18), "the second write re-stamped the list");
        // A retraction that finds nothing does not write: the stamp stays.
        feed(&mut op, 9, UB, "k9", "a");
        assert_eq!(op.ttl_of(key, 9).unwrap().last_access_ms, 8);
        // At 18 the list is expired: the retraction of k2 finds nothing (Flink's "state is cleared"
        // log), and the next row of key a starts over as +I.
        assert_eq!(op.list_rows(), 2);
        assert_eq!(feed(&mut op, 18, UB, "k2", "a"), [format!("dropped: {STATE_CLEARED_MSG}")]);
        assert_eq!(op.list_rows(), 0, "the read that found the list expired removed its two rows");
        assert_eq!(feed(&mut op, 19, I, "k3", "a"), ["+I[k3, a]"]);
        assert_eq!(stored(&op, "a", 19).as_deref(), Some("[k3, a]"));
        assert_eq!(op.list_rows(), 1);
    }
}
