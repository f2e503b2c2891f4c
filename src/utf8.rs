//! Text from bytes that arrive in chunks (a model's stream, a command's output): a character
//! split between two chunks is kept whole, and an invalid byte costs one U+FFFD, never the rest.
//! Also the one way a text is made a short line (titles, headers).

/// `text` as one line (whitespace runs made single spaces) of at most `max` characters, cut
/// with an ellipsis; None when nothing is left.
pub fn one_line(text: &str, max: usize) -> Option<String> {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return None;
    }
    if line.chars().count() <= max {
        return Some(line);
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    Some(cut)
}

/// Decodes UTF-8 across chunk boundaries, lossily.
#[derive(Debug, Default)]
pub struct Decoder {
    /// The start of a character whose remaining bytes have not arrived yet.
    pending: Vec<u8>,
}

impl Decoder {
    /// The text of `bytes`, after what was pending; an incomplete character at the end waits.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        if self.pending.is_empty()
            && let Ok(text) = std::str::from_utf8(bytes)
        {
            return text.to_owned();
        }
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(text) => {
                    out.push_str(text);
                    self.pending.clear();
                    return out;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(std::str::from_utf8(&self.pending[..valid]).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            self.pending.drain(..valid + bad);
                        }
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                    }
                }
            }
        }
    }

    /// What is left when the bytes end: an unfinished character is invalid.
    pub fn finish(&mut self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::Decoder;

    #[test]
    fn a_character_split_across_chunks_is_kept_whole() {
        let mut decoder = Decoder::default();
        let bytes = "héllo".as_bytes();
        assert_eq!(decoder.push(&bytes[..2]), "h");
        assert_eq!(decoder.push(&bytes[2..]), "éllo");
        assert_eq!(decoder.finish(), "");
    }

    #[test]
    fn an_invalid_byte_costs_one_character_and_a_split_one_after_it_waits() {
        let mut decoder = Decoder::default();
        let mut bytes = b"a\xffb".to_vec();
        bytes.extend_from_slice(&"é".as_bytes()[..1]);
        assert_eq!(decoder.push(&bytes), "a\u{FFFD}b");
        assert_eq!(decoder.push(&"é".as_bytes()[1..]), "é");
    }

    #[test]
    fn an_unfinished_character_at_the_end_is_replaced() {
        let mut decoder = Decoder::default();
        assert_eq!(decoder.push(&"é".as_bytes()[..1]), "");
        assert_eq!(decoder.finish(), "\u{FFFD}");
    }
}
