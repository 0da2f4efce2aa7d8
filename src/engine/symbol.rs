//! Interned strings: a string value is a number standing for its text.
//!
//! Keys, messages, state and checkpoints copy values constantly; with strings interned, a copy is
//! an 8-byte copy and an equality test an integer comparison, whatever the text (no reference
//! count to bump, no bytes to compare). Which number a text gets is never observable: values
//! order by their text ([`Sym`]'s `Ord`), and no output depends on the numbers.
//!
//! Two kinds of symbol, chosen by the text alone, so equal texts are always the same symbol:
//! - **numbered**: a text ending in a number (`user-42`, `dev7`, `u0`) is its prefix's symbol and
//!   the number, packed into the symbol itself. Only the prefix is stored. These are the texts
//!   that grow with events: the workload generator makes one per key (`key_prefix` + number),
//!   and a run over 10^7 distinct keys stores one prefix, not 10^7 texts.
//! - **stored**: any other text is kept in a per-thread table (the page and the CLI run one
//!   simulation thread), once, for the life of the thread. These texts come from what was read
//!   (a scenario, a SQL literal, a typed cell), so the table follows the text read, never the
//!   number of events. It is not freed: a symbol is `Copy` and may sit in any checkpoint or view
//!   of any simulation on the thread (the page compares two), so no owner could say when a text
//!   is no longer used.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

/// An interned string.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sym(u64);

/// Set on a numbered symbol.
const NUMBERED: u64 = 1 << 63;
/// Bits of a numbered symbol holding the number: numbers below 10^12 (12 digits) fit.
const NUMBER_BITS: u32 = 40;
const NUMBER_MASK: u64 = (1 << NUMBER_BITS) - 1;
/// The longest number a numbered symbol holds, in digits (10^12 − 1 < 2^40).
const MAX_DIGITS: usize = 12;
/// Prefixes with a table index below 2^23 can head a numbered symbol; later ones are stored whole.
const PREFIX_LIMIT: u64 = 1 << (63 - NUMBER_BITS);

#[derive(Default)]
struct Table {
    by_text: FxHashMap<Rc<str>, u32>,
    texts: Vec<Rc<str>>,
}

impl Table {
    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&n) = self.by_text.get(text) {
            return n;
        }
        let n = u32::try_from(self.texts.len()).expect("fewer than 2^32 distinct strings");
        let shared: Rc<str> = Rc::from(text);
        self.texts.push(shared.clone());
        self.by_text.insert(shared, n);
        n
    }
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

/// Where a text's canonical number starts: the trailing ASCII digits without their leading
/// zeros (a single `0` when all are zeros), if there are 1 to [`MAX_DIGITS`] of them.
fn number_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let digits_from = bytes.iter().rposition(|b| !b.is_ascii_digit()).map_or(0, |i| i + 1);
    if digits_from == bytes.len() {
        return None;
    }
    let significant = bytes[digits_from..].iter().position(|&b| b != b'0').map_or(bytes.len() - 1, |i| digits_from + i);
    (bytes.len() - significant <= MAX_DIGITS).then_some(significant)
}

/// The decimal digits of `n`, right-aligned in a buffer, and where they start.
fn digits(mut n: u64) -> ([u8; 20], usize) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return (buf, i);
        }
    }
}

impl Sym {
    /// The symbol of `text`, interning it (or its prefix) on first sight.
    pub fn new(text: &str) -> Sym {
        TABLE.with(|t| {
            let mut t = t.borrow_mut();
            if let Some(at) = number_start(text) {
                let prefix = u64::from(t.intern(&text[..at]));
                if prefix < PREFIX_LIMIT {
                    // At most MAX_DIGITS ASCII digits: parses, and fits NUMBER_BITS.
                    let n: u64 = text[at..].parse().unwrap_or(0);
                    return Sym(NUMBERED | prefix << NUMBER_BITS | n);
                }
            }
            Sym(u64::from(t.intern(text)))
        })
    }

    /// The symbol of `prefix` followed by the decimal `n` (the workload generator's keys), without
    /// building the text when the prefix does not end in a digit.
    pub fn numbered(prefix: &str, n: u64) -> Sym {
        let ends_in_digit = prefix.as_bytes().last().is_some_and(u8::is_ascii_digit);
        if ends_in_digit || n >= 10u64.pow(MAX_DIGITS as u32) {
            return Sym::new(&format!("{prefix}{n}"));
        }
        TABLE.with(|t| {
            let p = u64::from(t.borrow_mut().intern(prefix));
            if p < PREFIX_LIMIT {
                Sym(NUMBERED | p << NUMBER_BITS | n)
            } else {
                Sym::new(&format!("{prefix}{n}"))
            }
        })
    }

    /// The table index of the stored text (of the prefix, for a numbered symbol), and the number.
    fn parts(self) -> (usize, Option<u64>) {
        if self.0 & NUMBERED == 0 {
            (self.0 as usize, None)
        } else {
            (((self.0 & !NUMBERED) >> NUMBER_BITS) as usize, Some(self.0 & NUMBER_MASK))
        }
    }

    /// The text.
    pub fn text(self) -> Rc<str> {
        let (i, n) = self.parts();
        let stored = TABLE.with(|t| t.borrow().texts[i].clone());
        match n {
            None => stored,
            Some(n) => Rc::from(format!("{stored}{n}")),
        }
    }
}

impl Ord for Sym {
    /// By text: the same order whatever order the texts were interned in.
    fn cmp(&self, other: &Sym) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        let ((i, m), (j, n)) = (self.parts(), other.parts());
        TABLE.with(|t| {
            let t = t.borrow();
            let (a, b) = (&t.texts[i], &t.texts[j]);
            match (m, n) {
                (None, None) => a.cmp(b),
                (Some(m), Some(n)) if i == j => {
                    let ((da, sa), (db, sb)) = (digits(m), digits(n));
                    da[sa..].cmp(&db[sb..])
                }
                _ => {
                    let (da, sa) = m.map_or(([0; 20], 20), digits);
                    let (db, sb) = n.map_or(([0; 20], 20), digits);
                    a.bytes().chain(da[sa..].iter().copied()).cmp(b.bytes().chain(db[sb..].iter().copied()))
                }
            }
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
        let (i, n) = self.parts();
        f.write_str(&TABLE.with(|t| t.borrow().texts[i].clone()))?;
        match n {
            Some(n) => write!(f, "{n}"),
            None => Ok(()),
        }
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

/// Texts stored in this thread's table (for the memory tests: it must not grow with events).
pub fn stored_texts() -> usize {
    TABLE.with(|t| t.borrow().texts.len())
}

#[cfg(test)]
mod tests {
    use super::{stored_texts, Sym};

    #[test]
    fn equal_texts_are_one_symbol_and_order_by_text() {
        let (b, a) = (Sym::new("b"), Sym::new("a"));
        assert_eq!(Sym::new("b"), b);
        assert!(a < b, "ordered by text, not by interning order");
        assert_eq!(format!("{b} {b:?}"), "b \"b\"");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"a\"");
    }

    /// A numbered text is the same symbol however it was made, prints as itself and orders by
    /// its text (`u10` < `u9`), also against stored texts.
    #[test]
    fn numbered_texts_are_one_symbol_and_order_by_text() {
        for text in ["u0", "u9", "u10", "u007", "a000", "user-42", "123", "0", "x999999999999", "x1000000000000", "ü5"]
        {
            let s = Sym::new(text);
            assert_eq!(&*s.text(), text);
            assert_eq!(s.to_string(), text);
            assert_eq!(Sym::new(text), s, "{text}");
        }
        assert_eq!(Sym::numbered("u", 42), Sym::new("u42"));
        assert_eq!(Sym::numbered("u1", 5), Sym::new("u15"), "a prefix ending in a digit");
        assert_eq!(Sym::numbered("u0", 5), Sym::new("u05"));
        assert_eq!(Sym::numbered("", 0), Sym::new("0"));
        assert_ne!(Sym::new("u007"), Sym::new("u7"));
        let mut texts =
            ["u9", "u10", "u", "u1", "v", "u007", "u0a", "ua", "u7", "t99", "10", "9", "", "u99999999999999"];
        let mut syms: Vec<Sym> = texts.iter().map(|t| Sym::new(t)).collect();
        texts.sort_unstable();
        syms.sort();
        assert_eq!(syms.iter().map(|s| s.to_string()).collect::<Vec<_>>(), texts);
    }

    /// A million numbered keys store one prefix.
    #[test]
    fn numbered_keys_store_only_their_prefix() {
        Sym::new("key-");
        let before = stored_texts();
        for n in 0..1_000_000u64 {
            Sym::numbered("key-", n);
        }
        assert_eq!(stored_texts(), before);
    }
}
