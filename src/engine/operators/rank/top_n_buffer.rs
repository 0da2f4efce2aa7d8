//! `TopNBuffer` as both `AppendOnlyTopNFunction`s use it (Blink 1.10 and Flink 2.3, read from
//! the source): the partition's rows by sort key, each key's rows in arrival order, kept in the
//! map state `"data-state-with-append"` and read back whole for each record.

use super::rank::{RankSpec, SortKey};
use crate::engine::operators::Context;
use crate::engine::row::Row;
use crate::engine::state::{KeyId, KeyRegistry, MapState};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;

/// The partition's buffer: (sort key, its rows), best key first.
pub(super) type Buffer = Vec<(SortKey, Vec<Row>)>;

/// Reads the partition's buffer and adds `input` when `checkSortKeyInBufferRange` lets it in
/// (its key is better than the worst one, or the buffer holds fewer than N rows), writing its
/// sort key's rows back (`dataState.put`). Returns the buffer with the input and its sort key, or
/// `None` (traced) when the row cannot enter the top N.
pub(super) fn add_in_range(
    spec: &RankSpec,
    data_state: &mut MapState<SortKey, Vec<Row>>,
    keys: &mut KeyRegistry,
    key: KeyId,
    key_row: &Row,
    input: &Row,
    ctx: &mut Context,
) -> Option<(Buffer, SortKey)> {
    let now = ctx.now;
    let sort_key = spec.sort.key(input);
    let mut buffer = data_state.entries(keys, key, now);
    let rows: usize = buffer.iter().map(|(_, r)| r.len()).sum();
    let in_range = match buffer.last() {
        None => true,
        Some((worst, _)) => sort_key < *worst || (rows as u64) < spec.rank_end,
    };
    if !in_range {
        ctx.record(key_row, || TraceEvent::Suppressed {
            reason: "the row cannot enter the top N (its sort key is not better than the last row's)",
            row: input.clone(),
        });
        return None;
    }
    let at = buffer.partition_point(|(k, _)| *k < sort_key);
    match buffer.get_mut(at) {
        Some((k, rows)) if *k == sort_key => rows.push(input.clone()),
        _ => buffer.insert(at, (sort_key.clone(), vec![input.clone()])),
    }
    data_state.put(keys, key, sort_key.clone(), buffer[at].1.clone(), now);
    Some((buffer, sort_key))
}

/// `processElementWithoutRowNumber`'s trimming: when the buffer holds more than N rows, removes
/// its last row (`removeLast`, the state written back) and returns it.
pub(super) fn remove_last_beyond_n(
    spec: &RankSpec,
    data_state: &mut MapState<SortKey, Vec<Row>>,
    keys: &mut KeyRegistry,
    key: KeyId,
    buffer: &[(SortKey, Vec<Row>)],
    now: Millis,
) -> Option<Row> {
    let rows: usize = buffer.iter().map(|(_, r)| r.len()).sum();
    if rows as u64 <= spec.rank_end {
        return None;
    }
    let (last_key, last_list) = buffer.last()?;
    if last_list.len() <= 1 {
        data_state.remove(keys, key, last_key);
    } else {
        data_state.put(keys, key, last_key.clone(), last_list[..last_list.len() - 1].to_vec(), now);
    }
    last_list.last().cloned()
}

/// Removes the sort keys a rank walk did not reach (`buffer[from..]`).
pub(super) fn remove_unreached(
    data_state: &mut MapState<SortKey, Vec<Row>>,
    keys: &mut KeyRegistry,
    key: KeyId,
    buffer: &[(SortKey, Vec<Row>)],
    from: usize,
) {
    for (k, _) in &buffer[from..] {
        data_state.remove(keys, key, k);
    }
}
