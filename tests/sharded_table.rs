//! The engine's hash indexes are split into shards by hash in wasm as natively: in wasm `usize`
//! is 32 bits, and so is an FxHash (until 2026-12-04 every entry went to shard 0 in the page,
//! so a table of 334 676 keys grew and was copied after a checkpoint whole: trial 24).

use flink_state_sim::engine::sharded_table::{ShardedTable, SHARDS};
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test(unsupported = test)]
fn keys_hashed_as_the_engine_hashes_them_spread_over_the_shards() {
    let mut t: ShardedTable<u32> = ShardedTable::default();
    let hash = |i: u32| FxBuildHasher.hash_one(format!("order-{i}"));
    let n = 50_000u32;
    for i in 0..n {
        t.shard_mut(hash(i)).insert_unique(hash(i), i, |&v| hash(v));
    }
    // Each shard holds about n / SHARDS (195) entries.
    let most = (0..n).step_by(97).map(|i| t.shard(hash(i)).len()).max().unwrap();
    assert!(most < 2 * n as usize / SHARDS, "a shard holds {most} of {n} entries");
    assert_eq!(t.iter().count(), n as usize);
}
