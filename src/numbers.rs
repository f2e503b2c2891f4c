//! How numbers are written for people: digits grouped by thousands ("125,000"). Shared by
//! the editor's messages and the command line.

/// `123456` → `123,456`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234), "1,234");
        assert_eq!(thousands(125000), "125,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
