//! The page's tests in headless Chromium (`tests/browser*.rs`), as one test binary: one wasm
//! module to link, process and start instead of one per file. The tests of all files share one
//! document, as the tests of one file always did: each mounts its page in a fresh element and
//! removes it (`common::browser::Page`), and clears what it stored.
//! `tests/browser_crash.rs` runs alone (after its panic the module cannot run on), and
//! `tests/browser_drive_perf.rs` on the release build (`scripts/test.sh`).
//!
//! One file: `wasm-pack test --headless --chrome --no-default-features --test wasm_page -- <name>::`,
//! or the file alone: `--test <name>`.
#![cfg(target_arch = "wasm32")]

#[path = "browser.rs"]
mod browser;
#[path = "browser_book.rs"]
mod browser_book;
#[path = "browser_compare.rs"]
mod browser_compare;
#[path = "browser_drive.rs"]
mod browser_drive;
#[path = "browser_embed.rs"]
mod browser_embed;
#[path = "browser_embed_keys.rs"]
mod browser_embed_keys;
#[path = "browser_embed_panels.rs"]
mod browser_embed_panels;
#[path = "browser_files.rs"]
mod browser_files;
#[path = "browser_join.rs"]
mod browser_join;
#[path = "browser_layout.rs"]
mod browser_layout;
#[path = "browser_links.rs"]
mod browser_links;
#[path = "browser_quiet.rs"]
mod browser_quiet;
#[path = "browser_see.rs"]
mod browser_see;
#[path = "browser_sql.rs"]
mod browser_sql;
#[path = "browser_timeline.rs"]
mod browser_timeline;
#[path = "browser_to_end.rs"]
mod browser_to_end;
#[path = "browser_tour.rs"]
mod browser_tour;
#[path = "browser_what_if.rs"]
mod browser_what_if;
