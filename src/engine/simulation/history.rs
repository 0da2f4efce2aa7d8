//! The recorded actions of a run (time travel replays them), with what the page asks of them at
//! every step kept as they are recorded: how many are Steps, and the runs of equal actions (a
//! link encodes a position as runs: `1000000s`). Both cost the number of runs, not of actions:
//! at a million actions, counting them by a scan took the page several ms per step.

use super::Action;

/// The actions, and their runs of equal actions (each with where it ends, exclusive).
#[derive(Debug, Clone, Default)]
pub struct History {
    actions: Vec<Action>,
    runs: Vec<(Action, usize)>,
    steps: u64,
}

impl History {
    pub fn push(&mut self, action: Action) {
        self.actions.push(action);
        let end = self.actions.len();
        match self.runs.last_mut() {
            Some((a, e)) if *a == action => *e = end,
            _ => self.runs.push((action, end)),
        }
        self.steps += u64::from(action == Action::Step);
    }

    /// Keeps the first `n` actions.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.actions.len() {
            return;
        }
        while let Some(&(a, end)) = self.runs.last() {
            let start = self.runs.len().checked_sub(2).map_or(0, |i| self.runs[i].1);
            if start >= n {
                self.steps -= if a == Action::Step { (end - start) as u64 } else { 0 };
                self.runs.pop();
                continue;
            }
            if a == Action::Step {
                self.steps -= (end - n) as u64;
            }
            if let Some(last) = self.runs.last_mut() {
                last.1 = n;
            }
            break;
        }
        self.actions.truncate(n);
    }

    /// How many of the actions are Steps.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The runs of equal actions among the first `n`: `[Step, Step, NextTimer]` →
    /// `[(Step, 2), (NextTimer, 1)]`.
    pub fn runs_to(&self, n: usize) -> Vec<(Action, u64)> {
        let mut out = Vec::new();
        let mut start = 0;
        for &(a, end) in &self.runs {
            if start >= n {
                break;
            }
            out.push((a, (end.min(n) - start) as u64));
            start = end;
        }
        out
    }
}

impl std::ops::Deref for History {
    type Target = [Action];
    fn deref(&self) -> &[Action] {
        &self.actions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn action() -> impl Strategy<Value = Action> {
        prop_oneof![Just(Action::Step), Just(Action::NextTimer), (0..3i64).prop_map(Action::AdvanceBy)]
    }

    fn runs(actions: &[Action]) -> Vec<(Action, u64)> {
        let mut out: Vec<(Action, u64)> = Vec::new();
        for &a in actions {
            match out.last_mut() {
                Some((last, n)) if *last == a => *n += 1,
                _ => out.push((a, 1)),
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(17), ..ProptestConfig::default() })]
        /// Pushes and truncations in any order: the counts and runs are those of a scan.
        #[test]
        fn counts_and_runs_match_a_scan(ops in prop::collection::vec(prop_oneof![
            action().prop_map(Some), (0..40usize).prop_map(|n| { let _ = n; None })], 0..120),
            cuts in prop::collection::vec(0..40usize, 0..120)) {
            let mut h = History::default();
            let mut plain: Vec<Action> = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                match op {
                    Some(a) => { h.push(*a); plain.push(*a); }
                    None => { let n = cuts.get(i).copied().unwrap_or(0); h.truncate(n); plain.truncate(n); }
                }
                prop_assert_eq!(&h[..], &plain[..]);
                prop_assert_eq!(h.steps(), plain.iter().filter(|a| **a == Action::Step).count() as u64);
                for n in [0, plain.len() / 2, plain.len(), plain.len() + 3] {
                    prop_assert_eq!(h.runs_to(n), runs(&plain[..n.min(plain.len())]));
                }
            }
        }
    }
}
