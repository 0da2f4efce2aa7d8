//! Shrinks a failing input while it still fails the same way: greedy removal of object fields
//! and array elements (deepest first), then shorter strings; for text that is not JSON, removal
//! of ever smaller chunks. Bounded by a number of attempts.

use serde_json::Value;

const ATTEMPTS: usize = 400;

/// Paths of every node, parents before children.
fn paths(v: &Value, at: &mut Vec<PathSeg>, out: &mut Vec<Vec<PathSeg>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                at.push(PathSeg::Key(k.clone()));
                paths(c, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(PathSeg::Idx(i));
                paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathSeg {
    Key(String),
    Idx(usize),
}

fn node_mut<'v>(v: &'v mut Value, path: &[PathSeg]) -> Option<&'v mut Value> {
    path.iter().try_fold(v, |v, seg| match seg {
        PathSeg::Key(k) => v.get_mut(k.as_str()),
        PathSeg::Idx(i) => v.get_mut(*i),
    })
}

/// The same value without the node at `path`, or with it shortened (`step` 0: removed; 1: a
/// string halved).
fn without(v: &Value, path: &[PathSeg], step: u8) -> Option<Value> {
    let mut copy = v.clone();
    let (last, parent) = path.split_last()?;
    if step == 1 {
        let node = node_mut(&mut copy, path)?;
        let s = node.as_str()?;
        if s.chars().count() < 2 {
            return None;
        }
        let half: String = s.chars().take(s.chars().count() / 2).collect();
        *node = Value::String(half);
        return Some(copy);
    }
    match (node_mut(&mut copy, parent)?, last) {
        (Value::Object(o), PathSeg::Key(k)) => {
            o.shift_remove(k)?;
        }
        (Value::Array(a), PathSeg::Idx(i)) if *i < a.len() => {
            a.remove(*i);
        }
        _ => return None,
    }
    Some(copy)
}

/// The smallest input found for which `fails` holds (it holds for `text`).
pub fn reduce(text: &str, pretty: bool, mut fails: impl FnMut(&str) -> bool) -> String {
    let mut tries = 0;
    if let Ok(mut v) = serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}')) {
        let show = |v: &Value| if pretty { serde_json::to_string_pretty(v).unwrap() } else { v.to_string() };
        if !fails(&show(&v)) {
            return text.to_string();
        }
        for step in [0u8, 1] {
            let mut changed = true;
            while changed && tries < ATTEMPTS {
                changed = false;
                let mut all = Vec::new();
                paths(&v, &mut Vec::new(), &mut all);
                for p in all.iter().rev() {
                    if tries >= ATTEMPTS {
                        break;
                    }
                    let Some(smaller) = without(&v, p, step) else { continue };
                    tries += 1;
                    if fails(&show(&smaller)) {
                        v = smaller;
                        changed = true;
                        break;
                    }
                }
            }
        }
        return show(&v);
    }
    let mut chars: Vec<char> = text.chars().collect();
    let mut chunk = chars.len() / 2;
    while chunk > 0 && tries < ATTEMPTS {
        let mut i = 0;
        while i + chunk <= chars.len() && tries < ATTEMPTS {
            let mut c = chars.clone();
            c.drain(i..i + chunk);
            tries += 1;
            if fails(&c.iter().collect::<String>()) {
                chars = c;
            } else {
                i += chunk;
            }
        }
        chunk /= 2;
    }
    chars.into_iter().collect()
}
