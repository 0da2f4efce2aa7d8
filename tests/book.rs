//! The documentation book (`book/`) says only what the engine does:
//! - every scenario under `book/scenarios/` passes `flink-state-sim check` (each has an `expect`);
//! - every simulator a chapter embeds (`<flink-state-sim>` with `{{#include …}}`, an `<iframe>` on
//!   `?embed&preset=…`) is one of those files, so no chapter embeds an unchecked scenario;
//! - a book scenario named as a preset runs exactly that preset;
//! - every command output a chapter prints (a `console` block starting `$ flink-state-sim …`)
//!   is what the CLI prints, line for line (`...` skips lines).
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

fn scenarios() -> Vec<PathBuf> {
    files(&root().join("book/scenarios"), "json")
}

/// Each chapter's file name and text.
fn chapters() -> Vec<(String, String)> {
    files(&root().join("book/src"), "md")
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

/// A chapter's text outside its fenced code blocks, and the fenced blocks as (info string, lines).
fn split_fences(text: &str) -> (String, Vec<(String, Vec<String>)>) {
    let mut prose = String::new();
    let mut blocks = Vec::new();
    let mut open: Option<(String, String, Vec<String>)> = None; // (fence, info, lines)
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut open {
            Some((fence, _, lines)) => {
                if trimmed.starts_with(fence.as_str()) && trimmed.trim_start_matches('`').trim().is_empty() {
                    let (_, info, lines) = open.take().unwrap();
                    blocks.push((info, lines));
                } else {
                    lines.push(line.to_string());
                }
            }
            None if trimmed.starts_with("```") => {
                let fence: String = trimmed.chars().take_while(|&c| c == '`').collect();
                let info = trimmed[fence.len()..].trim().to_string();
                open = Some((fence, info, Vec::new()));
            }
            None => {
                prose.push_str(&strip_code_spans(line));
                prose.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a fenced code block is not closed");
    (prose, blocks)
}

/// `line` without its inline code spans (`` `<flink-state-sim>` `` is text, not an element).
fn strip_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let run = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + run..];
        let fence = "`".repeat(run);
        match after.find(&fence) {
            Some(end) => rest = &after[end + run..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every `<flink-state-sim …>…</flink-state-sim>` element of a chapter's prose, whole.
fn elements(prose: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = prose;
    while let Some(start) = rest.find("<flink-state-sim") {
        let end = rest[start..].find("</flink-state-sim>").map(|e| start + e + "</flink-state-sim>".len());
        let end = end.unwrap_or_else(|| panic!("an unclosed <flink-state-sim> element: {}", &rest[start..]));
        out.push(&rest[start..end]);
        rest = &rest[end..];
    }
    out
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let after = &rest[start + open.len()..];
        let end = after.find(close).unwrap_or_else(|| panic!("{open} without {close}"));
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

/// The book scenario a chapter's `{{#include PATH}}` names (PATH relative to book/src).
fn included(chapter: &str, path: &str) -> PathBuf {
    let path = path.trim();
    let file = root().join("book/src").join(path);
    let dir = file.parent().map(|d| d.canonicalize().ok());
    assert_eq!(
        dir,
        Some(Some(root().join("book/scenarios").canonicalize().unwrap())),
        "{chapter}: embeds {path}, which is not under book/scenarios (only checked scenarios may be embedded)"
    );
    assert!(file.is_file(), "{chapter}: embeds {path}, which does not exist");
    file.canonicalize().unwrap()
}

/// Every scenario the chapters embed, with the chapter embedding it.
fn embedded() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for (chapter, text) in chapters() {
        let (prose, _) = split_fences(&text);
        for el in elements(&prose) {
            let open_tag = &el[..el.find('>').unwrap()];
            assert!(
                !open_tag.contains("scenario="),
                "{chapter}: {open_tag}>: embed a file of book/scenarios with {{{{#include}}}}, not a preset by name"
            );
            let includes = between(el, "{{#include", "}}");
            assert_eq!(includes.len(), 1, "{chapter}: each <flink-state-sim> includes one scenario: {el}");
            assert!(el.contains("<script type=\"application/json\">"), "{chapter}: {el}");
            out.push((chapter.clone(), included(&chapter, includes[0])));
        }
        for src in between(&prose, "<iframe", ">").iter().flat_map(|tag| between(tag, "src=\"", "\"")) {
            let query = src.split_once('?').map_or("", |(_, q)| q);
            assert!(
                query.split('&').any(|p| p == "embed"),
                "{chapter}: an iframe of the simulator opens ?embed: {src}"
            );
            let preset = query.split('&').find_map(|p| p.strip_prefix("preset="));
            let preset = preset.unwrap_or_else(|| panic!("{chapter}: an iframe names its scenario by preset=: {src}"));
            let file = root().join("book/scenarios").join(format!("{preset}.json"));
            assert!(file.is_file(), "{chapter}: the iframe's preset {preset} has no checked copy in book/scenarios");
            out.push((chapter.clone(), file.canonicalize().unwrap()));
        }
    }
    out
}

#[test]
fn every_book_scenario_passes_check() {
    let files = scenarios();
    assert!(files.len() >= 15, "{files:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_flink-state-sim")).arg("check").args(&files).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(out.lines().filter(|l| l.starts_with("ok ")).count(), files.len(), "{out}");
    assert!(!out.contains("expects nothing"), "every book scenario states what it expects:\n{out}");
    for file in &files {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let expect = &v["expect"];
        assert!(
            expect["changelog"].is_object() && expect["result"].is_array(),
            "{}: expect lacks changelog or result",
            file.display()
        );
        assert!(expect["stale_rows"].is_u64(), "{}: expect lacks stale_rows", file.display());
        let stem = file.file_stem().unwrap().to_string_lossy();
        assert_eq!(v["name"].as_str(), Some(&*stem), "{}: its name is its file's", file.display());
    }
}

#[test]
fn every_embedded_scenario_is_a_checked_book_scenario() {
    let embedded = embedded();
    // Seven chapters embed 18 simulators (an unparsed chapter would find none).
    assert!(embedded.len() >= 18, "{embedded:?}");
    for chapter in [
        "cleanup-timers.md",
        "five-minute-gap.md",
        "state-ttl.md",
        "retraction.md",
        "per-operator-ttl.md",
        "topn-dedup.md",
        "embedding.md",
    ] {
        assert!(embedded.iter().any(|(c, _)| c == chapter), "{chapter} embeds no simulator");
    }
    // And every book scenario is there for a chapter: embedded, or run by a printed command.
    let printed: String = chapters().into_iter().map(|(_, t)| t).collect();
    for file in scenarios() {
        let canonical = file.canonicalize().unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            embedded.iter().any(|(_, f)| *f == canonical) || printed.contains(&format!("book/scenarios/{name}")),
            "book/scenarios/{name} is neither embedded nor run by any chapter"
        );
    }
}

#[test]
fn the_browser_test_mounts_every_book_scenario() {
    let browser = std::fs::read_to_string(root().join("tests/browser_book.rs")).unwrap();
    for file in scenarios() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            browser.contains(&format!("include_str!(\"../book/scenarios/{name}\")")),
            "tests/browser_book.rs does not mount book/scenarios/{name}"
        );
    }
}

#[test]
fn a_book_scenario_named_as_a_preset_runs_that_preset() {
    let run_part = |json: &str| {
        let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
        for people in ["title", "description", "watch", "expect"] {
            v.as_object_mut().unwrap().remove(people);
        }
        v
    };
    let mut same = 0;
    for file in scenarios() {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        if let Some(preset) = flink_state_sim::engine::presets::preset_json(&name) {
            assert_eq!(run_part(preset), run_part(&std::fs::read_to_string(&file).unwrap()), "{name}");
            same += 1;
        }
    }
    assert!(same >= 5, "{same}");
}

/// `expected` (a console block's output lines, `...` skipping any number of lines) against `actual`.
fn matches(expected: &[String], actual: &[&str]) -> Result<(), String> {
    let mut at = 0;
    let mut skipping = false;
    for (i, line) in expected.iter().enumerate() {
        if line.trim() == "..." {
            skipping = true;
            continue;
        }
        let found = if skipping {
            actual[at..].iter().position(|a| a == line).map(|p| at + p)
        } else {
            (actual.get(at) == Some(&line.as_str())).then_some(at)
        };
        match found {
            Some(p) => at = p + 1,
            None => {
                return Err(format!(
                    "line {} of the block, {line:?}, is not {}; the CLI printed {:?}",
                    i + 1,
                    if skipping { "printed after the previous line" } else { "the next line printed" },
                    actual.get(at).copied().unwrap_or("nothing more")
                ))
            }
        }
        skipping = false;
    }
    if !skipping && at < actual.len() {
        return Err(format!("the CLI printed more after the block's last line: {:?}", actual[at]));
    }
    Ok(())
}

#[test]
fn every_printed_command_output_is_what_the_cli_prints() {
    let mut checked = 0;
    for (chapter, text) in chapters() {
        let (_, blocks) = split_fences(&text);
        for (info, lines) in blocks.iter().filter(|(info, _)| info == "console") {
            let Some(command) = lines.first().and_then(|l| l.strip_prefix("$ flink-state-sim ")) else {
                panic!("{chapter}: a {info} block starts with `$ flink-state-sim …`: {lines:?}")
            };
            let o = Command::new(env!("CARGO_BIN_EXE_flink-state-sim"))
                .args(command.split_whitespace())
                .current_dir(root())
                .output()
                .unwrap();
            assert!(o.status.success(), "{chapter}: {command}: {}", String::from_utf8_lossy(&o.stderr));
            let out = String::from_utf8(o.stdout).unwrap();
            let actual: Vec<&str> = out.lines().collect();
            if let Err(e) = matches(&lines[1..], &actual) {
                panic!("{chapter}: `flink-state-sim {command}`: {e}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn code_spans_are_not_elements() {
    assert_eq!(strip_code_spans("an `<iframe>`, ``a `b` c`` and <x>"), "an ,  and <x>");
    assert_eq!(strip_code_spans("one ` unclosed"), "one ` unclosed");
    let (prose, _) = split_fences("`<flink-state-sim>` text\n```html\n<flink-state-sim></flink-state-sim>\n```\n<flink-state-sim>\n{{#include ../scenarios/a.json}}\n</flink-state-sim>\n");
    assert_eq!(elements(&prose), ["<flink-state-sim>\n{{#include ../scenarios/a.json}}\n</flink-state-sim>"]);
}

#[test]
fn a_printed_output_that_differs_is_caught() {
    let block = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    let actual = ["a", "b", "c", "d"];
    assert_eq!(matches(&block("a\nb\nc\nd"), &actual), Ok(()));
    assert_eq!(matches(&block("...\nc\n..."), &actual), Ok(()));
    assert_eq!(matches(&block("a\n...\nd"), &actual), Ok(()));
    assert!(matches(&block("a\nc\n..."), &actual).unwrap_err().contains("\"c\", is not the next line printed"));
    assert!(matches(&block("a\nb"), &actual).unwrap_err().contains("printed more"));
    assert!(matches(&block("...\ne"), &actual).unwrap_err().contains("\"e\""));
}

/// `check --draft` prints the `expect` block a run produces: for every book scenario, exactly the
/// block the file carries (which was read against the seeds and Flink's rules).
#[test]
fn check_draft_prints_the_expect_block_of_each_book_scenario() {
    let files = scenarios();
    let o =
        Command::new(env!("CARGO_BIN_EXE_flink-state-sim")).args(["check", "--draft"]).args(&files).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let drafts: Vec<serde_json::Value> =
        serde_json::Deserializer::from_str(&out).into_iter().map(Result::unwrap).collect();
    assert_eq!(drafts.len(), files.len());
    for (file, draft) in files.iter().zip(drafts) {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let mut expect = v["expect"].clone();
        // A file may state that an operator registers no timer (`"agg": []`); the draft lists
        // only the operators that do.
        if let Some(timers) = expect.get_mut("timers").and_then(|t| t.as_object_mut()) {
            timers.retain(|_, events| events.as_array().is_none_or(|e| !e.is_empty()));
            if timers.is_empty() {
                expect.as_object_mut().unwrap().remove("timers");
            }
        }
        assert_eq!(draft, expect, "{}", file.display());
    }
}
