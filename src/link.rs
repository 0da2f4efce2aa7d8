//! The limits on what a link or a file may make the page read, and the bounded decoding of a
//! permalink's `s=` (the scenario compressed as LZ-String's `compressToEncodedURIComponent`).
//! Pure Rust, on both targets, so that it is tested natively.
//!
//! **Why a pre-pass.** LZ-String is LZW: each code names a dictionary entry, and each code adds
//! an entry one character longer than the one before it can be. A stream whose every code names
//! the entry being defined (LZW's "KwKwK" case) decodes `n` codes — `~2.4 n` bytes of link — to
//! `n (n + 1) / 2` characters: a 70 KB link is 2.4 GB of text, and the dictionary as much again.
//! Neither the `lz-str` crate (0.2.1, the newest) nor the other Rust port (`lz-string` 0.1.1) can
//! stop at a size. So [`decoded_len`] first walks the same code stream keeping only each entry's
//! *length* (one `u32` per code, linear in the link's length) and stops as soon as the output
//! would pass [`MAX_SCENARIO_UNITS`]; only a stream that stays within it is handed to the library,
//! whose output (and dictionary, each entry being a previous output's prefix plus one character)
//! is then bounded by that same size. The walk mirrors `lz-str` 0.2.1's
//! `decompress_internal` (its bit reader, code widths and end of stream) exactly; the tests check
//! that both agree on the length of every output.

/// The longest link query (`?s=…&step=…`, in characters) the page reads. A browser's address
/// holds up to 2 MB (Chromium); a scenario of [`MAX_SCENARIO_UNITS`] compresses to far less than
/// this. Walked in a few ms ([`decoded_len`]).
pub const MAX_LINK_CHARS: usize = 1_000_000;

/// The longest scenario text a link may decode to, in UTF-16 code units (characters, for the
/// ASCII of a scenario's JSON): 4 Mi, about 4 MB. The presets are under 6 KB; a scenario with
/// 50 000 explicit steps is about 2.5 MB.
pub const MAX_SCENARIO_UNITS: usize = 4 << 20;

/// The largest scenario file the page imports, in bytes (checked before it is read): the
/// engine's [`crate::engine::scenario::MAX_SCENARIO_BYTES`], 4 MiB.
pub const MAX_IMPORT_BYTES: u64 = crate::engine::scenario::MAX_SCENARIO_BYTES as u64;

/// The longest address (`?s=…&step=…`, in characters) the page writes into its own URL: a longer
/// one is not written, the autosave carries the scenario over a reload, and the page says so. Web
/// servers refuse longer request lines with `414 URI Too Long`: nginx's default buffers hold 8 KB,
/// Apache's `LimitRequestLine` is 8 190 bytes (Python's `http.server` reads up to 65 536). A
/// scenario of about 1 000 explicit steps fits.
pub const MAX_ADDRESS_CHARS: usize = 8_000;

/// The longest scenario text the page compresses for its address: 64 × [`MAX_ADDRESS_CHARS`]
/// (512 000 bytes). LZ-String compresses a scenario's JSON 5–20 times, so a longer text's link
/// would not fit; compressing it would take the page's task for 0.1–0.8 s (2.5 MB: 750 ms).
pub const MAX_LINKED_TEXT_BYTES: usize = 64 * MAX_ADDRESS_CHARS;

/// LZ-String's URI-safe alphabet (`lz-str`'s `URI_KEY`): each character carries 6 bits (`$`, the
/// 65th, is the padding).
const URI_KEY: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";

/// `data` as 6-bit values, as `lz-str`'s `decompress_from_encoded_uri_component` reads it: a
/// space is a `+` (a `+` decoded as a space on the way), characters outside the alphabet are
/// skipped.
fn sextets(data: &str) -> Vec<u16> {
    data.encode_utf16()
        .map(|c| if c == u16::from(b' ') { u16::from(b'+') } else { c })
        .filter_map(|c| URI_KEY.iter().position(|k| u16::from(*k) == c).map(|n| n as u16))
        .collect()
}

/// `lz-str`'s bit reader: bits of each value from the highest of `bits` down; running out of
/// input after the last bit ends the stream (`None`), as in the library.
struct Bits<'a> {
    data: std::slice::Iter<'a, u16>,
    val: u16,
    position: u16,
    reset: u16,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u16], bits: u8) -> Option<Self> {
        let mut data = data.iter();
        let val = *data.next()?;
        let reset = 1 << (bits - 1);
        Some(Bits { data, val, position: reset, reset })
    }

    fn bit(&mut self) -> Option<u32> {
        let bit = u32::from(self.val & self.position != 0);
        self.position >>= 1;
        if self.position == 0 {
            self.position = self.reset;
            self.val = *self.data.next()?;
        }
        Some(bit)
    }

    /// `n` bits, the first read the lowest.
    fn read(&mut self, n: u8) -> Option<u32> {
        let mut out = 0;
        for i in 0..u32::from(n) {
            out |= self.bit()? << i;
        }
        Some(out)
    }
}

/// The decoded stream passes `cap` code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// Units decoded when the walk stopped (more than the cap).
    pub at_least: usize,
}

/// How many UTF-16 code units `lz-str` would decode `values` (6-bit, [`sextets`]) to, walking the
/// codes with entry lengths only; stops with [`TooLong`] as soon as the total passes `cap`. A
/// stream the library refuses (a code past the dictionary) gives the length decoded until then:
/// the library stops at the same point.
fn walk(values: &[u16], cap: usize) -> Result<usize, TooLong> {
    let Some(mut bits) = Bits::new(values, 6) else { return Ok(0) };
    // The three reserved codes, then the first character.
    let mut lens: Vec<u32> = vec![1, 1, 1];
    let literal = |bits: &mut Bits, code: u32| bits.read(if code == 0 { 8 } else { 16 });
    match bits.read(2) {
        Some(code @ (0 | 1)) if literal(&mut bits, code).is_some() => lens.push(1),
        _ => return Ok(0),
    }
    let (mut w, mut total) = (1u32, 1usize);
    let (mut num_bits, mut enlarge_in) = (3u8, 4u64);
    loop {
        let Some(mut code) = bits.read(num_bits) else { return Ok(total) };
        match code {
            0 | 1 => {
                if literal(&mut bits, code).is_none() {
                    return Ok(total);
                }
                lens.push(1);
                code = (lens.len() - 1) as u32;
                enlarge_in -= 1;
            }
            2 => return Ok(total),
            _ => {}
        }
        if enlarge_in == 0 {
            enlarge_in = 1 << num_bits;
            num_bits += 1;
        }
        let entry = match lens.get(code as usize) {
            Some(len) => *len,
            None if code as usize == lens.len() => w + 1,
            None => return Ok(total),
        };
        total += entry as usize;
        if total > cap {
            return Err(TooLong { at_least: total });
        }
        lens.push(w + 1);
        enlarge_in -= 1;
        w = entry;
        if enlarge_in == 0 {
            enlarge_in = 1 << num_bits;
            num_bits += 1;
        }
    }
}

/// How many UTF-16 code units `data` (a `compressToEncodedURIComponent` text) decodes to, or
/// [`TooLong`] once that passes `cap`. Linear in `data`'s length, whatever it decodes to.
///
/// # Errors
/// [`TooLong`] when the decoded text would be longer than `cap`.
pub fn decoded_len(data: &str, cap: usize) -> Result<usize, TooLong> {
    walk(&sextets(data), cap)
}

/// The scenario text of a link's `s=`, decoded only when it is at most [`MAX_SCENARIO_UNITS`]
/// long ([`decoded_len`] first).
///
/// # Errors
/// `s:` and why: longer than the limits, or not LZ-String data of a text.
pub fn decompress_scenario(data: &str) -> Result<String, String> {
    if data.len() > MAX_LINK_CHARS {
        return Err(format!(
            "s: the compressed scenario is {} characters long, more than the {} a link may carry",
            crate::engine::digits::grouped(data.len()),
            crate::engine::digits::grouped(MAX_LINK_CHARS)
        ));
    }
    let values = sextets(data);
    if let Err(e) = walk(&values, MAX_SCENARIO_UNITS) {
        return Err(format!(
            "s: the compressed scenario decodes to more than {} characters, the most a link \
             may carry (decoding stopped at {})",
            crate::engine::digits::grouped(MAX_SCENARIO_UNITS),
            crate::engine::digits::grouped(e.at_least)
        ));
    }
    let corrupt = || "s: the compressed scenario is corrupted (it is not LZ-String data of a text)".to_string();
    let wide = lz_str::decompress_internal(values.into_iter(), 6).ok_or_else(corrupt)?;
    let text = String::from_utf16(&wide).map_err(|_| corrupt())?;
    if text.is_empty() {
        return Err(corrupt());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lz_bomb.py N [CHAR] [--close]` (the reproducer in `repro/more/url/`), bit for bit: a
    /// stream that decodes to `n (n + 3) / 2 + 1` copies of `ch` (code `k` names an entry `k + 1`
    /// long; the script's `n (n + 1) / 2 + 1` leaves out one per code).
    pub(crate) fn lz_bomb(n: usize, ch: u8, close: bool) -> String {
        let mut bits: Vec<u8> = Vec::new();
        let emit = |bits: &mut Vec<u8>, value: usize, width: u32| {
            for i in 0..width {
                bits.push(((value >> i) & 1) as u8);
            }
        };
        emit(&mut bits, 0, 2);
        emit(&mut bits, usize::from(ch), 8);
        let (mut dict_len, mut num_bits, mut enlarge_in) = (4usize, 3u32, 4usize);
        for _ in 0..n {
            emit(&mut bits, dict_len, num_bits);
            dict_len += 1;
            enlarge_in -= 1;
            if enlarge_in == 0 {
                enlarge_in = 1 << num_bits;
                num_bits += 1;
            }
        }
        if close {
            emit(&mut bits, 2, num_bits);
        }
        while !bits.len().is_multiple_of(6) {
            bits.push(0);
        }
        bits.chunks(6).map(|c| URI_KEY[c.iter().fold(0usize, |v, b| (v << 1) | usize::from(*b))] as char).collect()
    }

    /// The width of the `k`-th code of [`lz_bomb`] (the close code after `n` codes is the `n`-th).
    fn code_width(k: usize) -> usize {
        let (mut width, mut enlarge_in) = (3, 4);
        for _ in 0..k {
            enlarge_in -= 1;
            if enlarge_in == 0 {
                enlarge_in = 1 << width;
                width += 1;
            }
        }
        width
    }

    fn library_len(data: &str) -> Option<usize> {
        lz_str::decompress_from_encoded_uri_component(data).map(|v| v.len())
    }

    #[test]
    fn a_small_bomb_is_measured_exactly_as_the_library_decodes_it() {
        for n in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100, 1000] {
            let closed = lz_bomb(n, b'{', true);
            let expected = n * (n + 3) / 2 + 1;
            // The library refuses a stream whose close code ends on a character's last bit (it
            // reads one character past it; LZ-String's own compressor always writes one): then
            // the walk still says what it decoded before.
            let aligned = (2 + 8 + (0..=n).map(code_width).sum::<usize>()) % 6 == 0;
            assert_eq!(library_len(&closed), (!aligned).then_some(expected), "n = {n}");
            assert_eq!(decoded_len(&closed, usize::MAX), Ok(expected), "n = {n}");
            // Without the close code the library decodes it all, then refuses at the end; the
            // last code is lost when it ends on a character's last bit.
            let open = lz_bomb(n, b'{', false);
            let aligned = (2 + 8 + (0..n).map(code_width).sum::<usize>()) % 6 == 0;
            let decoded = if aligned { expected - (n + 1) } else { expected };
            assert_eq!(decoded_len(&open, usize::MAX), Ok(decoded), "n = {n}, no close code");
        }
    }

    #[test]
    fn the_reproducers_bomb_is_refused_after_a_bounded_walk() {
        // `lz_bomb.py 29000`: a 70 KB link that decodes to 420 M characters (840 MB of UTF-16).
        let link = lz_bomb(29_000, b'{', false);
        assert!(link.len() > 60_000 && link.len() < 80_000, "{}", link.len());
        let started = std::time::Instant::now();
        let err = decompress_scenario(&link).unwrap_err();
        assert!(started.elapsed().as_millis() < 2_000, "{:?}", started.elapsed());
        assert!(err.starts_with("s: the compressed scenario decodes to more than 4,194,304 characters"), "{err}");
        let TooLong { at_least } = decoded_len(&link, MAX_SCENARIO_UNITS).unwrap_err();
        assert!(at_least > MAX_SCENARIO_UNITS && at_least < MAX_SCENARIO_UNITS + 3_000, "{at_least}");
    }

    #[test]
    fn a_bomb_just_under_the_cap_decodes_and_one_just_over_does_not() {
        // n (n + 3) / 2 + 1 ≤ 4 Mi for n ≤ 2894.
        let under = lz_bomb(2894, b'{', true);
        assert_eq!(decoded_len(&under, MAX_SCENARIO_UNITS), Ok(2894 * 2897 / 2 + 1));
        assert_eq!(decompress_scenario(&under).map(|t| t.len()), Ok(2894 * 2897 / 2 + 1));
        let over = lz_bomb(2895, b'{', true);
        assert!(decoded_len(&over, MAX_SCENARIO_UNITS).is_err());
        assert!(decompress_scenario(&over).is_err());
    }

    #[test]
    fn scenarios_round_trip_and_are_measured_to_the_unit() {
        for (name, json) in crate::engine::presets::PRESETS {
            let data = lz_str::compress_to_encoded_uri_component(*json);
            assert_eq!(decoded_len(&data, usize::MAX), Ok(json.encode_utf16().count()), "{name}");
            assert_eq!(decompress_scenario(&data).as_deref(), Ok(*json), "{name}");
        }
        // Non-ASCII text (16-bit literals) and a space standing for '+'.
        let text = "{\"name\": \"ä€😀 ä€😀 ä€😀\"}".repeat(50);
        let data = lz_str::compress_to_encoded_uri_component(text.as_str());
        assert_eq!(decoded_len(&data, usize::MAX), Ok(text.encode_utf16().count()));
        assert_eq!(decompress_scenario(&data.replace('+', " ")), Ok(text));
    }

    #[test]
    fn random_streams_are_measured_as_the_library_decodes_them() {
        // A fixed LCG: 20 000 streams of 1 to 60 characters of the alphabet, mostly corrupt.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % m
        };
        let mut decoded = 0;
        for _ in 0..20_000 {
            let len = 1 + next(60) as usize;
            let data: String = (0..len).map(|_| URI_KEY[next(65) as usize] as char).collect();
            if let Some(n) = library_len(&data) {
                assert_eq!(decoded_len(&data, usize::MAX), Ok(n), "{data}");
                decoded += 1;
            }
        }
        assert!(decoded > 1_000, "only {decoded} streams decoded");
    }

    #[test]
    fn corrupt_and_overlong_data_are_refused_with_the_reason() {
        assert_eq!(
            decompress_scenario("not-lz!").unwrap_err(),
            "s: the compressed scenario is corrupted (it is not LZ-String data of a text)"
        );
        assert_eq!(decoded_len("", 10), Ok(0));
        let long = "A".repeat(MAX_LINK_CHARS + 1);
        assert!(decompress_scenario(&long).unwrap_err().contains("more than the 1,000,000 a link may carry"));
    }
}
