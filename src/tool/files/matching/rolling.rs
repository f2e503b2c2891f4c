//! Hashes of runs of lines in constant time each: every line hashed once with keys drawn per
//! process (so a file cannot be written to collide), then a polynomial over them modulo
//! 2^61 − 1, so that the windows of a long block are compared without being read again.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::OnceLock;

const MODULUS: u64 = (1 << 61) - 1;

/// The process's hash keys.
pub fn seed() -> &'static RandomState {
    static SEED: OnceLock<RandomState> = OnceLock::new();
    SEED.get_or_init(RandomState::new)
}

fn reduce(value: u128) -> u64 {
    let folded = (value & u128::from(MODULUS)) + (value >> 61);
    let folded = (folded & u128::from(MODULUS)) + (folded >> 61);
    (folded as u64) % MODULUS
}

fn base() -> u64 {
    static BASE: OnceLock<u64> = OnceLock::new();
    *BASE.get_or_init(|| seed().hash_one("rolling base") % (MODULUS - 2) + 2)
}

/// One hash per line of `lines`, of the text `key` makes of it.
pub fn line_hashes<'a>(
    lines: impl Iterator<Item = &'a str>,
    key: impl Fn(&str) -> &str,
) -> Vec<u64> {
    lines.map(|l| seed().hash_one(key(l)) % MODULUS).collect()
}

/// The prefix hashes of a sequence of line hashes.
pub struct Rolling {
    prefix: Vec<u64>,
    powers: Vec<u64>,
}

impl Rolling {
    pub fn new(hashes: &[u64]) -> Self {
        let b = base();
        let mut prefix = Vec::with_capacity(hashes.len() + 1);
        let mut powers = Vec::with_capacity(hashes.len() + 1);
        prefix.push(0);
        powers.push(1);
        for &h in hashes {
            let last = *prefix.last().unwrap_or(&0);
            prefix.push(reduce(u128::from(last) * u128::from(b) + u128::from(h)));
            let power = *powers.last().unwrap_or(&1);
            powers.push(reduce(u128::from(power) * u128::from(b)));
        }
        Rolling { prefix, powers }
    }

    /// The hash of lines `start..start + n`.
    pub fn window(&self, start: usize, n: usize) -> u64 {
        let whole = self.prefix[start + n];
        let before = reduce(u128::from(self.prefix[start]) * u128::from(self.powers[n]));
        (whole + MODULUS - before) % MODULUS
    }

    /// The hash of the whole sequence.
    pub fn all(&self) -> u64 {
        *self.prefix.last().unwrap_or(&0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_runs_hash_alike_and_others_do_not() {
        let lines = ["a", "b", "a", "b", "c"];
        let hashes = line_hashes(lines.iter().copied(), |l| l);
        let rolling = Rolling::new(&hashes);
        assert_eq!(rolling.window(0, 2), rolling.window(2, 2));
        assert_ne!(rolling.window(1, 2), rolling.window(2, 2));
        let whole = Rolling::new(&hashes[2..4]);
        assert_eq!(whole.all(), rolling.window(0, 2));
        assert_ne!(rolling.window(0, 1), rolling.window(0, 2));
    }
}
