//! Interned strings: a string value is a number standing for its text.
//!
//! Keys, messages, state and checkpoints copy values constantly; with strings interned, a copy is
//! a 4-byte copy and an equality test an integer comparison, whatever the text (no reference
//! count to bump, no bytes to compare). The table is per thread (the page and the CLI run one
//! simulation thread) and only grows: it holds each distinct text once, for the life of the
//! thread. Which number a text gets is never observable: values order by their text
//! ([`Sym`]'s `Ord`), and no output depends on the numbers.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

/// An interned string.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sym(u32);

#[derive(Default)]
struct Table {
    by_text: FxHashMap<Rc<str>, u32>,
    texts: Vec<Rc<str>>,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

impl Sym {
    /// The symbol of `text`, interning it on first sight.
    pub fn new(text: &str) -> Sym {
        TABLE.with(|t| {
            let mut t = t.borrow_mut();
            if let Some(&n) = t.by_text.get(text) {
                return Sym(n);
            }
            let n = u32::try_from(t.texts.len()).expect("fewer than 2^32 distinct strings");
            let shared: Rc<str> = Rc::from(text);
            t.texts.push(shared.clone());
            t.by_text.insert(shared, n);
            Sym(n)
        })
    }

    /// The text.
    pub fn text(self) -> Rc<str> {
        TABLE.with(|t| t.borrow().texts[self.0 as usize].clone())
    }
}

impl Ord for Sym {
    /// By text: the same order whatever order the texts were interned in.
    fn cmp(&self, other: &Sym) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        TABLE.with(|t| {
            let t = t.borrow();
            t.texts[self.0 as usize].cmp(&t.texts[other.0 as usize])
        })
    }
}

impl PartialOrd for Sym {
    fn partial_cmp(&self, other: &Sym) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.text())
    }
}

impl serde::Serialize for Sym {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::Sym;

    #[test]
    fn equal_texts_are_one_symbol_and_order_by_text() {
        let (b, a) = (Sym::new("b"), Sym::new("a"));
        assert_eq!(Sym::new("b"), b);
        assert!(a < b, "ordered by text, not by interning order");
        assert_eq!(format!("{b} {b:?}"), "b \"b\"");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"a\"");
    }
}
