//! The browser pass of the test command runs two bundles (`tests/wasm_engine.rs`,
//! `tests/wasm_page.rs`: one wasm test binary each) and the files that must run alone. A test
//! file with `#[wasm_bindgen_test]` left out of both would never run in the browser: this checks
//! that each is in exactly one bundle, or named below as running alone.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::Path;

/// Files run as their own wasm binary, and why.
const ALONE: [(&str, &str); 3] = [
    ("browser_crash", "after its panic the module cannot run on (scripts/test.sh runs it alone)"),
    ("browser_drive_perf", "timed on the release build (scripts/test.sh)"),
    ("wasm_bench", "the wasm benchmark, scripts/bench-wasm.sh"),
];

/// The modules a bundle includes (`#[path = "x.rs"] mod x;`).
fn bundled(bundle: &str) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new("tests").join(bundle)).unwrap();
    text.lines().filter_map(|l| l.strip_prefix("#[path = \"")?.strip_suffix(".rs\"]").map(str::to_string)).collect()
}

#[test]
fn every_file_with_browser_tests_runs_in_one_bundle_or_alone() {
    let mut wasm_files = BTreeSet::new();
    for entry in std::fs::read_dir("tests").unwrap() {
        let path = entry.unwrap().path();
        let (Some(stem), Some("rs")) = (path.file_stem(), path.extension().and_then(|e| e.to_str())) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        if text.lines().any(|l| l.trim_start().starts_with("#[wasm_bindgen_test")) {
            wasm_files.insert(stem.to_string_lossy().into_owned());
        }
    }
    let engine = bundled("wasm_engine.rs");
    let page = bundled("wasm_page.rs");
    assert!(engine.len() > 10 && page.len() > 10, "{engine:?} {page:?}");
    let mut seen = BTreeSet::new();
    for name in engine.iter().chain(&page).map(String::as_str).chain(ALONE.iter().map(|(n, _)| *n)) {
        assert!(seen.insert(name), "{name} is run twice in the browser pass");
        assert!(wasm_files.contains(name), "{name} has no #[wasm_bindgen_test]");
    }
    let missing: Vec<_> = wasm_files.iter().filter(|f| !seen.contains(f.as_str())).collect();
    assert!(
        missing.is_empty(),
        "not run in the browser pass: {missing:?}: add to tests/wasm_engine.rs or wasm_page.rs"
    );
    assert!(page.iter().all(|p| p.starts_with("browser")), "{page:?}");
}
