//! Where the current result rows come from: each row is matched to the last operator's emission
//! that put it there and to the losses that made it stale or put it at risk
//! ([`super::RowProvenance`]).
//!
//! Only the rows the kept trace says something of are looked at: the rows equal to an emission
//! in it, and the rows of a key whose loss it shows, each found by hash in the result table. Every
//! other row is older than the trace and not made stale by a loss in it: its provenance is the
//! default (no emission, no inputs, no loss). So building it costs what the trace holds, not
//! what the result holds (a run of a million logins keeps 166 k result rows, and the flow view
//! rebuilds this at every step).

use super::{Lineage, Provenance, RowProvenance};
use crate::engine::row::Row;
use crate::engine::simulation::Simulation;
use crate::engine::trace::TraceEntry;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

/// One [`RowProvenance`] per current result row, in
/// [`ResultTable::rows`](crate::engine::result_table::ResultTable::rows) order; held only for the
/// rows the kept trace says something of, the default for the others.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RowsProvenance {
    len: usize,
    known: BTreeMap<usize, RowProvenance>,
    none: RowProvenance,
}

impl RowsProvenance {
    /// How many result rows there are.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `r`'s provenance; `None` past the last row.
    pub fn get(&self, r: usize) -> Option<&RowProvenance> {
        (r < self.len).then(|| self.known.get(&r).unwrap_or(&self.none))
    }

    /// Every row's, in order (the default for rows the trace says nothing of).
    pub fn iter(&self) -> Iter<'_> {
        Iter { rows: self, next: 0 }
    }

    /// The rows the kept trace says something of, ascending.
    pub fn known(&self) -> impl Iterator<Item = (usize, &RowProvenance)> {
        self.known.iter().map(|(&r, p)| (r, p))
    }

    pub(super) fn known_mut(&mut self) -> impl Iterator<Item = &mut RowProvenance> {
        self.known.values_mut()
    }
}

/// [`RowsProvenance::iter`].
pub struct Iter<'a> {
    rows: &'a RowsProvenance,
    next: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a RowProvenance;
    fn next(&mut self) -> Option<&'a RowProvenance> {
        let p = self.rows.get(self.next)?;
        self.next += 1;
        Some(p)
    }
}

impl<'a> IntoIterator for &'a RowsProvenance {
    type Item = &'a RowProvenance;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Row `r`'s provenance; the default one past the last row (a view never takes the page down).
impl std::ops::Index<usize> for RowsProvenance {
    type Output = RowProvenance;
    fn index(&self, r: usize) -> &RowProvenance {
        self.get(r).unwrap_or(&self.none)
    }
}

/// The last operator's accumulate emissions (`emitted`, trace indexes) by the row they carry,
/// oldest first.
fn accumulations_by_row<'t>(trace: &'t [TraceEntry], emitted: &[usize]) -> HashMap<&'t Row, Vec<usize>> {
    let mut by_row: HashMap<&Row, Vec<usize>> = HashMap::default();
    for &e in emitted {
        if let Some(m) = trace[e].event.message().filter(|m| m.change.is_accumulate()) {
            by_row.entry(&m.row).or_default().push(e);
        }
    }
    by_row
}

/// Matches each current result row to the last operator's emission that put it there (the
/// newest unclaimed accumulate message equal to it; fresh rows first, stale ones take older
/// ones), and to the losses that made it stale or put it at risk.
pub(super) fn rows(
    sim: &Simulation,
    trace: &[TraceEntry],
    emitted: &[usize],
    key_columns: &[usize],
    p: &Provenance,
    n_ops: usize,
) -> RowsProvenance {
    let table = sim.result();
    let mut by_row = accumulations_by_row(trace, emitted);
    // Each row equal to one claims the newest left: the fresh rows from the last one back, then
    // the stale ones from the last one back (slots ascend in the table's order).
    let mut produced: BTreeMap<u32, usize> = BTreeMap::new();
    for (row, emissions) in &mut by_row {
        let mut slots = table.slots_of_row(row);
        let stale = |s: u32| table.in_slot(s).is_some_and(|r| r.stale_since_ms.is_some());
        slots.sort_unstable_by_key(|&s| (stale(s), std::cmp::Reverse(s)));
        for s in slots {
            let Some(e) = emissions.pop() else { break };
            produced.insert(s, e);
        }
    }
    // The losses of the last operator by key: each stale row of the key takes the one at its
    // time, else the latest before it.
    let mut own_losses: HashMap<&Row, Vec<usize>> = HashMap::default();
    let last = n_ops.saturating_sub(1);
    for (l, loss) in p.losses.iter().enumerate().filter(|(_, l)| l.op == last) {
        own_losses.entry(&loss.key).or_default().push(l);
    }
    let mut stale: BTreeMap<u32, usize> = BTreeMap::new();
    for (key, own) in &own_losses {
        for s in table.slots_of_key(key) {
            let Some(row) = table.in_slot(s) else { continue };
            let Some(at) = row.stale_since_ms else { continue };
            if row.row.project(key_columns) != **key {
                continue;
            }
            let exact = own.iter().rev().find(|&&l| p.losses[l].at_ms == at);
            if let Some(&l) = exact.or_else(|| own.iter().rev().find(|&&l| p.losses[l].at_ms <= at)) {
                stale.insert(s, l);
            }
        }
    }
    // Only an operator whose output retracts would ever have corrected what it sent: a loss in an
    // insert-only one (an OVER window, a keep-first dedup, a Calc over inserts) changes what it
    // emits from then on, never a row already downstream.
    let operators = &sim.scenario().operators;
    let upstream: Vec<usize> = (0..p.losses.len())
        .filter(|&l| p.losses[l].op < last && operators[p.losses[l].op].spec.output_retracts())
        .collect();
    let slots: Vec<u32> = {
        let mut all: Vec<u32> = produced.keys().chain(stale.keys()).copied().collect();
        all.sort_unstable();
        all.dedup();
        all
    };
    let empty = Lineage::default();
    let known = slots
        .iter()
        .zip(table.positions_of_slots(&slots))
        .map(|(s, r)| {
            let produced_by = produced.get(s).copied();
            let inputs = produced_by.and_then(|e| p.lineage[e].clone()).unwrap_or_else(|| empty.clone());
            let at_risk = if inputs.is_empty() {
                Vec::new()
            } else {
                upstream.iter().copied().filter(|&l| !p.losses[l].inputs.is_disjoint(&inputs)).collect()
            };
            let stale = stale.get(s).copied();
            (r, RowProvenance { produced_by, inputs, stale, at_risk, restarted_after: Vec::new() })
        })
        .collect();
    let out = RowsProvenance { len: table.len(), known, none: RowProvenance::default() };
    #[cfg(debug_assertions)]
    debug_assert_eq!(out.iter().cloned().collect::<Vec<_>>(), rows_by_scan(sim, trace, emitted, key_columns, p, n_ops));
    out
}

/// [`rows`] by a scan of every result row (how it was built before): a debug build checks
/// that the two agree on every provenance it builds.
#[cfg(debug_assertions)]
fn rows_by_scan(
    sim: &Simulation,
    trace: &[TraceEntry],
    emitted: &[usize],
    key_columns: &[usize],
    p: &Provenance,
    n_ops: usize,
) -> Vec<RowProvenance> {
    let result: Vec<_> = sim.result().rows().collect();
    // Each row claims the newest emission left.
    let mut by_row = accumulations_by_row(trace, emitted);
    let mut produced = vec![None; result.len()];
    if !by_row.is_empty() {
        let order = (0..result.len())
            .filter(|&r| result[r].stale_since_ms.is_none())
            .rev()
            .chain((0..result.len()).filter(|&r| result[r].stale_since_ms.is_some()).rev());
        for r in order {
            produced[r] = by_row.get_mut(&result[r].row).and_then(Vec::pop);
        }
    }
    // The losses of the last operator by key, and the upstream ones.
    let mut own_losses: HashMap<&Row, Vec<usize>> = HashMap::default();
    let last = n_ops.saturating_sub(1);
    for (l, loss) in p.losses.iter().enumerate().filter(|(_, l)| l.op == last) {
        own_losses.entry(&loss.key).or_default().push(l);
    }
    // Only an operator whose output retracts would ever have corrected what it sent: a loss in an
    // insert-only one (an OVER window, a keep-first dedup, a Calc over inserts) changes what it
    // emits from then on, never a row already downstream.
    let operators = &sim.scenario().operators;
    let upstream: Vec<usize> = (0..p.losses.len())
        .filter(|&l| p.losses[l].op < last && operators[p.losses[l].op].spec.output_retracts())
        .collect();
    let empty = Lineage::default();
    result
        .iter()
        .zip(produced)
        .map(|(row, produced_by)| {
            let inputs = produced_by.and_then(|e| p.lineage[e].clone()).unwrap_or_else(|| empty.clone());
            let stale = row.stale_since_ms.filter(|_| !own_losses.is_empty()).and_then(|at| {
                let own = own_losses.get(&row.row.project(key_columns))?;
                let exact = own.iter().rev().find(|&&l| p.losses[l].at_ms == at);
                exact.or_else(|| own.iter().rev().find(|&&l| p.losses[l].at_ms <= at)).copied()
            });
            let at_risk = if inputs.is_empty() {
                Vec::new()
            } else {
                upstream.iter().copied().filter(|&l| !p.losses[l].inputs.is_disjoint(&inputs)).collect()
            };
            RowProvenance { produced_by, inputs, stale, at_risk, restarted_after: Vec::new() }
        })
        .collect()
}
