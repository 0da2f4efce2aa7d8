//! Counts as people read them in a message: `4,194,304 bytes`, not `4194304 bytes`
//! (`num-format`, English grouping). Step and action numbers the page shows as positions
//! (`step 12 / 1000000`) stay plain: they are typed back into links and `step=` options.

use num_format::{Locale, ToFormattedString};

/// `n` with its digits grouped by thousands: `4194304` → `4,194,304`.
pub fn grouped(n: impl ToFormattedString) -> String {
    n.to_formatted_string(&Locale::en)
}

#[cfg(test)]
mod tests {
    #[test]
    fn groups_by_thousands() {
        assert_eq!(super::grouped(0usize), "0");
        assert_eq!(super::grouped(999u64), "999");
        assert_eq!(super::grouped(4_194_304usize), "4,194,304");
    }
}
